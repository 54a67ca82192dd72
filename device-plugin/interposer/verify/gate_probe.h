// What the stream-gate probes share: a check that ends the probe at the first failing driver call,
// and their green contexts, one split of the GPU's SMs into a part of a given size and the rest.
#ifndef SMSLICE_VERIFY_GATE_PROBE_H
#define SMSLICE_VERIFY_GATE_PROBE_H
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                           \
  do {                                                     \
    CUresult r_ = (x);                                     \
    if (r_ != CUDA_SUCCESS) {                              \
      const char *s_ = "?";                                \
      cuGetErrorName(r_, &s_);                             \
      printf("FAILED %s: %s (%d)\n", #x, s_, (int)r_);     \
      fflush(stdout);                                      \
      exit(1);                                             \
    }                                                      \
  } while (0)

/* Makes a green context of the split's first `sms` SMs (rest 0) or of the SMs left (rest 1) and
 * makes it current; its SM count goes to *count. */
static CUresult green_split(CUdevice dev, unsigned sms, int rest, CUgreenCtx *green,
                            unsigned *count) {
  CUdevResource all, part, left;
  unsigned groups = 1;
  CUresult r = cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
  if (r == CUDA_SUCCESS) r = cuDevSmResourceSplitByCount(&part, &groups, &all, &left, 0, sms);
  CUdevResource *mine = rest ? &left : &part;
  CUdevResourceDesc desc;
  if (r == CUDA_SUCCESS) r = cuDevResourceGenerateDesc(&desc, mine, 1);
  if (r == CUDA_SUCCESS) r = cuGreenCtxCreate(green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
  CUcontext ctx;
  if (r == CUDA_SUCCESS) r = cuCtxFromGreenCtx(&ctx, *green);
  if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
  if (r == CUDA_SUCCESS) *count = mine->sm.smCount;
  return r;
}

#endif
