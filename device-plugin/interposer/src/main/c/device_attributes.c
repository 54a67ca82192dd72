/* What the program is told about the claim's GPU, and the context kinds it may not make there. */
#include <stddef.h>

#include "cuda_driver.h"
#include "hooks.h"
#include "slice.h"
#include "wrappers.h"

/* The claim's SM count, not the GPU's: grids sized from it (cooperative launches, persistent and
 * split-K kernels, cudaOccupancy-based launchers) must fit the slice, not the whole GPU. */
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev) {
  CUresult r = CALL_REAL(cuDeviceGetAttribute_fn, H_DEVICE_GET_ATTRIBUTE, value, attribute, dev);
  if (r != CUDA_SUCCESS || value == NULL || attribute != CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    return r;
  int sms = slice_claim_sms(dev);
  if (sms > 0) *value = sms;
  return r;
}

/* Contexts made for graphics interop are ordinary contexts on the whole GPU: refused. */
static CUresult graphics_context(const char *what) {
  if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  return slice_refuse(what);
}

CUresult cuGLCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  (void)pctx, (void)flags, (void)dev;
  return graphics_context("cuGLCtxCreate (an OpenGL interop context on the whole GPU)");
}
CUresult cuGLCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return cuGLCtxCreate(pctx, flags, dev);
}
CUresult cuVDPAUCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev, void *vdpau,
                          void *get_proc) {
  (void)pctx, (void)flags, (void)dev, (void)vdpau, (void)get_proc;
  return graphics_context("cuVDPAUCtxCreate (a VDPAU interop context on the whole GPU)");
}
CUresult cuVDPAUCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev, void *vdpau,
                             void *get_proc) {
  return cuVDPAUCtxCreate(pctx, flags, dev, vdpau, get_proc);
}
