/* A library linked with -lcuda whose constructor uses CUDA, as some libraries do at load. */
#include <stdio.h>

#include "fake_cuda.h"

CUresult cuInit(unsigned int);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
const char *fakecuda_last_launch(void);

__attribute__((constructor)) static void use_cuda_at_load(void) {
  CUdevice dev;
  CUcontext primary;
  printf("ctor-cuInit %d\n", cuInit(0));
  cuDeviceGet(&dev, 1);
  printf("ctor-retain %d\n", cuDevicePrimaryCtxRetain(&primary, dev));
  printf("ctor-set %d\n", cuCtxSetCurrent(primary));
  CUresult r = cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
  printf("ctor-launch %d %s\n", r, r == 0 ? fakecuda_last_launch() : "-");
  fflush(stdout);
}
