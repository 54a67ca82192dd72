// Diagnoses the per-thread default stream inside a green context, without the interposer: makes a
// green context of the split's first two groups current by hand, then tries the per-thread stream
// through the runtime and the driver. Prints "<step> <result>".
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

__global__ void touch(int *p) { p[threadIdx.x] = 1; }

#define SHOW(step, call) printf("%s %d\n", step, (int)(call))

int main() {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUdevResource whole, groups[32], rest;
  unsigned n = 32;
  SHOW("resource", cuDeviceGetDevResource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM));
  SHOW("split", cuDevSmResourceSplitByCount(groups, &n, &whole, &rest, 0, 8));
  CUdevResourceDesc desc;
  SHOW("desc", cuDevResourceGenerateDesc(&desc, groups, 2));
  CUgreenCtx green;
  SHOW("green", cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  CUcontext ctx, got = nullptr;
  CUgreenCtx got_green = nullptr;
  SHOW("convert", cuCtxFromGreenCtx(&ctx, green));
  SHOW("set-current", cuCtxSetCurrent(ctx));
  SHOW("driver-stream-get-ctx-legacy", cuStreamGetCtx(CU_STREAM_LEGACY, &got));
  SHOW("driver-stream-get-ctx-per-thread", cuStreamGetCtx(CU_STREAM_PER_THREAD, &got));
  SHOW("driver-stream-get-ctx-v2-per-thread", cuStreamGetCtx_v2(CU_STREAM_PER_THREAD, &got, &got_green));
  int *p;
  SHOW("runtime-malloc", cudaMalloc(&p, 128));
  SHOW("driver-memset-per-thread", cuMemsetD8Async((CUdeviceptr)p, 0, 128, CU_STREAM_PER_THREAD));
  SHOW("driver-sync-per-thread", cuStreamSynchronize(CU_STREAM_PER_THREAD));
  touch<<<1, 32, 0, cudaStreamLegacy>>>(p);
  SHOW("runtime-launch-legacy", cudaStreamSynchronize(cudaStreamLegacy));
  touch<<<1, 32, 0, cudaStreamPerThread>>>(p);
  SHOW("runtime-launch-per-thread", cudaGetLastError());
  SHOW("runtime-sync-per-thread", cudaStreamSynchronize(cudaStreamPerThread));
  SHOW("runtime-memset-per-thread", cudaMemsetAsync(p, 0, 128, cudaStreamPerThread));
  return 0;
}
