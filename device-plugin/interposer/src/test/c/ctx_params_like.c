/* A program linked with -lcuda that asks cuCtxCreate_v3 and _v4 for what a slice cannot give
 * (execution affinity, CIG) and, beside each, for the same call without it. One line per step,
 * "<step> <CUresult> <the context current after it>". */
#include <stdio.h>

#include "fake_cuda.h"

CUresult cuInit(unsigned int);
CUresult cuCtxCreate_v3(CUcontext *, void *, int, unsigned int, CUdevice);
CUresult cuCtxCreate_v4(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxGetCurrent(CUcontext *);
const char *fakecuda_describe(CUcontext);

static void step(const char *name, CUresult r, CUcontext made) {
  CUcontext current = NULL;
  cuCtxGetCurrent(&current);
  printf("%s %d %s\n", name, r, r == CUDA_SUCCESS ? fakecuda_describe(current) : "-");
  fflush(stdout);
  if (r == CUDA_SUCCESS) cuCtxDestroy_v2(made);
}

int main(void) {
  printf("cuInit %d\n", cuInit(0));
  CUcontext made = NULL;
  int affinity = 0; /* any non-NULL pointer: the interposer must not read it */
  step("v3-one-affinity", cuCtxCreate_v3(&made, &affinity, 1, 0, 1), made);
  step("v3-no-affinity", cuCtxCreate_v3(&made, NULL, 0, 0, 1), made);
  step("v3-affinity-count-0", cuCtxCreate_v3(&made, &affinity, 0, 0, 1), made);

  CUctxCreateParams cig = {.cigParams = &affinity};
  step("v4-cig", cuCtxCreate_v4(&made, &cig, 0, 1), made);
  CUctxCreateParams one = {.execAffinityParams = &affinity, .numExecAffinityParams = 1};
  step("v4-one-affinity", cuCtxCreate_v4(&made, &one, 0, 1), made);
  CUctxCreateParams none = {0};
  step("v4-empty-params", cuCtxCreate_v4(&made, &none, 0, 1), made);
  step("v4-no-params", cuCtxCreate_v4(&made, NULL, 0, 1), made);
  return 0;
}
