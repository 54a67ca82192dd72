/* A program linked with -lcuda: it binds to the driver's exported symbols at load time. */
#include <stdio.h>

#include "fake_cuda.h"

CUresult cuInit(unsigned int);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxPushCurrent_v2(CUcontext);
CUresult cuCtxPopCurrent_v2(CUcontext *);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
const char *fakecuda_last_launch(void);

int main(void) {
  CUdevice dev;
  CUcontext primary, popped;
  printf("cuInit %d\n", cuInit(0));
  cuDeviceGet(&dev, 1);
  printf("retain %d\n", cuDevicePrimaryCtxRetain(&primary, dev));
  printf("set %d\n", cuCtxSetCurrent(primary));
  CUresult r = cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
  printf("launch-set %d %s\n", r, r == 0 ? fakecuda_last_launch() : "-");
  cuCtxSetCurrent(NULL);
  printf("push %d\n", cuCtxPushCurrent_v2(primary));
  r = cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
  printf("launch-push %d %s\n", r, r == 0 ? fakecuda_last_launch() : "-");
  cuCtxPopCurrent_v2(&popped);
  return 0;
}
