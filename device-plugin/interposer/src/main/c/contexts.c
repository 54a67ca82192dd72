/* Wrappers of the calls that choose which context a thread's work runs in. The runtime makes a
 * device's primary context current with cuCtxSetCurrent or cuCtxPushCurrent on every thread that
 * uses the device; swapping the claim's green context in at exactly those points confines every
 * stream the thread then makes or uses (legacy, per-thread, created, prioritised, non-blocking)
 * and every graph launched there. Changing only what cuDevicePrimaryCtxRetain returns does not. */
#include <stddef.h>

#include "cuda_driver.h"
#include "hooks.h"
#include "log.h"
#include "slice.h"
#include "wrappers.h"

/* The context to make current in place of ctx, or a refusal. */
static CUresult confined(CUcontext ctx, CUcontext *use, const char *what) {
  switch (slice_classify(ctx)) {
    case CTX_PASS:
      *use = ctx;
      return CUDA_SUCCESS;
    case CTX_SWAP:
      return slice_context(use);
    default:
      return slice_refuse(what);
  }
}

CUresult cuInit(unsigned int flags) {
  if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  return CALL_REAL(cuInit_fn, H_INIT, flags);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  CUresult r = CALL_REAL(cuDevicePrimaryCtxRetain_fn, H_PRIMARY_CTX_RETAIN, pctx, dev);
  if (r == CUDA_SUCCESS) slice_note_primary(dev, *pctx);
  return r;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  CUcontext use;
  CUresult r = confined(ctx, &use, "cuCtxSetCurrent of a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : CALL_REAL(cuCtxSetCurrent_fn, H_CTX_SET_CURRENT, use);
}

static CUresult push(hook_id id, CUcontext ctx) {
  CUcontext use;
  CUresult r = confined(ctx, &use, "cuCtxPushCurrent of a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : CALL_REAL(cuCtxPushCurrent_fn, id, use);
}

CUresult cuCtxPushCurrent(CUcontext ctx) { return push(H_CTX_PUSH_CURRENT, ctx); }
CUresult cuCtxPushCurrent_v2(CUcontext ctx) { return push(H_CTX_PUSH_CURRENT_V2, ctx); }

/* The primary context is never left current: if it ever is (a path the interposer does not
 * see), the slice's context replaces it before the caller can use it. Either way the caller is
 * shown the primary context's handle, the one it retained (slice_public). */
CUresult cuCtxGetCurrent(CUcontext *pctx) {
  CUresult r = CALL_REAL(cuCtxGetCurrent_fn, H_CTX_GET_CURRENT, pctx);
  if (r != CUDA_SUCCESS || pctx == NULL || *pctx == NULL) return r;
  CUcontext use;
  if ((r = confined(*pctx, &use, "a current context outside the claim's slice")) != CUDA_SUCCESS)
    return r;
  if (use != *pctx && (r = CALL_REAL(cuCtxSetCurrent_fn, H_CTX_SET_CURRENT, use)) != CUDA_SUCCESS)
    return r;
  *pctx = slice_public(use);
  return CUDA_SUCCESS;
}

static CUresult pop(hook_id id, CUcontext *pctx) {
  CUresult r = CALL_REAL(cuCtxPopCurrent_fn, id, pctx);
  if (r == CUDA_SUCCESS && pctx != NULL) *pctx = slice_public(*pctx);
  return r;
}

CUresult cuCtxPopCurrent(CUcontext *pctx) { return pop(H_CTX_POP_CURRENT, pctx); }
CUresult cuCtxPopCurrent_v2(CUcontext *pctx) { return pop(H_CTX_POP_CURRENT_V2, pctx); }

/* A stream of the slice belongs, as far as the program can tell, to the primary context. */
static CUresult stream_ctx(CUresult r, CUcontext *pctx, CUgreenCtx *pgreen) {
  if (r != CUDA_SUCCESS || pctx == NULL || *pctx == NULL) return r;
  CUcontext use;
  if ((r = confined(*pctx, &use, "a stream of a context outside the claim's slice")) != CUDA_SUCCESS)
    return r;
  *pctx = slice_public(use);
  if (pgreen != NULL && slice_is_own_green(*pgreen) && *pctx != use) *pgreen = NULL;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream s, CUcontext *pctx) {
  return stream_ctx(CALL_REAL(cuStreamGetCtx_fn, H_STREAM_GET_CTX, s, pctx), pctx, NULL);
}
CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext *pctx) {
  return stream_ctx(CALL_REAL(cuStreamGetCtx_fn, H_STREAM_GET_CTX_PTSZ, s, pctx), pctx, NULL);
}
CUresult cuStreamGetCtx_v2(CUstream s, CUcontext *pctx, CUgreenCtx *pgreen) {
  return stream_ctx(CALL_REAL(cuStreamGetCtx_v2_fn, H_STREAM_GET_CTX_V2, s, pctx, pgreen), pctx, pgreen);
}
CUresult cuStreamGetCtx_v2_ptsz(CUstream s, CUcontext *pctx, CUgreenCtx *pgreen) {
  return stream_ctx(CALL_REAL(cuStreamGetCtx_v2_fn, H_STREAM_GET_CTX_V2_PTSZ, s, pctx, pgreen), pctx,
                    pgreen);
}

/* A program's own context on the claim's GPU becomes a new green context of the claim's groups:
 * separate from the runtime's, as cuCtxCreate promises, and confined. Flags that only tune
 * scheduling are dropped; affinity and CIG parameters cannot be honoured and are refused. */
static CUresult create(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  if (flags != 0) smslice_debug("cuCtxCreate flags 0x%x not applied to the slice's context", flags);
  return slice_create_context(dev, pctx);
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return create(pctx, flags, dev);
}
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return create(pctx, flags, dev);
}
CUresult cuCtxCreate_v3(CUcontext *pctx, void *affinity, int count, unsigned int flags,
                        CUdevice dev) {
  if (affinity != NULL && count > 0)
    return slice_refuse("cuCtxCreate with execution-affinity parameters");
  return create(pctx, flags, dev);
}
CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                        CUdevice dev) {
  if (params != NULL && (params->numExecAffinityParams > 0 || params->cigParams != NULL))
    return slice_refuse("cuCtxCreate with execution-affinity or CIG parameters");
  return create(pctx, flags, dev);
}

static CUresult destroy(hook_id id, CUcontext ctx) {
  CUresult r;
  return slice_destroy_context(ctx, &r) ? r : CALL_REAL(cuCtxDestroy_fn, id, ctx);
}

CUresult cuCtxDestroy(CUcontext ctx) { return destroy(H_CTX_DESTROY, ctx); }
CUresult cuCtxDestroy_v2(CUcontext ctx) { return destroy(H_CTX_DESTROY_V2, ctx); }
