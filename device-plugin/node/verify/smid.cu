// Counts the SMs a kernel's blocks ran on (%smid), and the SM count the device reports to this
// process. Under an MPS server with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE both shrink to the share.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void recordSm(unsigned *seen) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  long long start = clock64();
  while (clock64() - start < 100000) {
  }  // keep each block resident long enough that the blocks spread over every SM allowed
  if (threadIdx.x == 0) seen[sm % 1024] = 1;
}

int main() {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
    printf("no CUDA device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  unsigned *seen;
  cudaMalloc(&seen, 1024 * sizeof(unsigned));
  cudaMemset(seen, 0, 1024 * sizeof(unsigned));
  recordSm<<<8192, 128>>>(seen);
  cudaError_t err = cudaDeviceSynchronize();
  unsigned host[1024];
  cudaMemcpy(host, seen, sizeof(host), cudaMemcpyDeviceToHost);
  int distinct = 0;
  for (int i = 0; i < 1024; i++) distinct += host[i] != 0;
  printf("device SM count %d, distinct %%smid over 8192 blocks %d (%s)\n", sms, distinct,
         cudaGetErrorString(err));
  return err == cudaSuccess ? 0 : 1;
}
