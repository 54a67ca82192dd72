#include "program_green.h"

#include <pthread.h>
#include <string.h>

#include "driver.h"
#include "hooks.h"
#include "log.h"
#include "slice.h"
#include "wrappers.h"

enum { MAX_RESOURCES = 512, MAX_DESCS = 128, MAX_GREENS = 128 };

/* Never held across a driver call. Resources are values the program copies around: one is inside
 * the slice when it equals, byte for byte, one the interposer handed out or saw split from one. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUdevResource inside[MAX_RESOURCES];
static int inside_next, inside_count;
static CUdevResourceDesc descs[MAX_DESCS];
static int descs_next, descs_count;
static struct {
  CUgreenCtx green;
  CUcontext ctx;
} greens[MAX_GREENS];
static int green_count;

static void note_inside(const CUdevResource *r) {
  if (r->type != CU_DEV_RESOURCE_TYPE_SM || r->sm.smCount == 0) return;
  pthread_mutex_lock(&lock);
  inside[inside_next] = *r;
  inside_next = (inside_next + 1) % MAX_RESOURCES;
  if (inside_count < MAX_RESOURCES) inside_count++;
  pthread_mutex_unlock(&lock);
}

static int is_inside(const CUdevResource *r) {
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < inside_count && !found; i++) found = memcmp(&inside[i], r, sizeof *r) == 0;
  pthread_mutex_unlock(&lock);
  return found;
}

static int desc_inside(CUdevResourceDesc d) {
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < descs_count && !found; i++) found = d != NULL && descs[i] == d;
  pthread_mutex_unlock(&lock);
  return found;
}

static int green_inside(CUgreenCtx g) {
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < green_count && !found; i++) found = greens[i].green == g;
  pthread_mutex_unlock(&lock);
  return found;
}

int program_green_owns(CUcontext ctx) {
  pthread_mutex_lock(&lock);
  int found = 0;
  for (int i = 0; i < green_count && !found; i++) found = greens[i].ctx == ctx;
  pthread_mutex_unlock(&lock);
  return found;
}

/* The slice's SM resource, in place of the resource of the whole device or of its primary
 * context. */
static CUresult slice_resource(CUgreenCtx g, CUdevResource *res) {
  CUresult r = DRIVER(cuGreenCtxGetDevResource_fn, D_GREEN_CTX_GET_DEV_RESOURCE, g, res,
                      CU_DEV_RESOURCE_TYPE_SM);
  if (r == CUDA_SUCCESS) note_inside(res);
  return r;
}

CUresult cuDeviceGetDevResource(CUdevice dev, CUdevResource *res, int type) {
  if (type == CU_DEV_RESOURCE_TYPE_SM && res != NULL && slice_claim_device() == dev) {
    CUcontext mine;
    slice_context(&mine);
    return slice_resource(slice_green(mine), res);
  }
  return CALL_REAL(cuDeviceGetDevResource_fn, H_DEVICE_GET_DEV_RESOURCE, dev, res, type);
}

CUresult cuCtxGetDevResource(CUcontext ctx, CUdevResource *res, int type) {
  if (type == CU_DEV_RESOURCE_TYPE_SM && res != NULL) {
    CUgreenCtx g = slice_green(ctx);
    if (g != NULL) return slice_resource(g, res);
  }
  CUresult r = CALL_REAL(cuCtxGetDevResource_fn, H_CTX_GET_DEV_RESOURCE, ctx, res, type);
  if (r == CUDA_SUCCESS && program_green_owns(ctx)) note_inside(res);
  return r;
}

CUresult cuGreenCtxGetDevResource(CUgreenCtx g, CUdevResource *res, int type) {
  CUresult r = CALL_REAL(cuGreenCtxGetDevResource_fn, H_GREEN_CTX_GET_DEV_RESOURCE, g, res, type);
  if (r == CUDA_SUCCESS && (slice_is_own_green(g) || green_inside(g))) note_inside(res);
  return r;
}

static void note_split(const CUdevResource *input, const CUdevResource *result, unsigned n,
                       const CUdevResource *remainder) {
  if (input == NULL || !is_inside(input)) return;
  for (unsigned i = 0; result != NULL && i < n; i++) note_inside(&result[i]);
  if (remainder != NULL) note_inside(remainder);
}

CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nb,
                                     const CUdevResource *input, CUdevResource *remainder,
                                     unsigned int flags, unsigned int min) {
  CUresult r = CALL_REAL(cuDevSmResourceSplitByCount_fn, H_SM_RESOURCE_SPLIT_BY_COUNT, 
      result, nb, input, remainder, flags, min);
  if (r == CUDA_SUCCESS && nb != NULL) note_split(input, result, *nb, remainder);
  return r;
}

/* CUDA 13.1's structured split (driver 590 and later). */
CUresult cuDevSmResourceSplit(CUdevResource *result, unsigned int nb, const CUdevResource *input,
                              CUdevResource *remainder, unsigned int flags, void *params) {
  CUresult r =
      CALL_REAL(cuDevSmResourceSplit_fn, H_SM_RESOURCE_SPLIT, result, nb, input, remainder, flags,
                params);
  if (r == CUDA_SUCCESS) note_split(input, result, nb, remainder);
  return r;
}

/* A descriptor is inside the slice when it names SMs and every SM resource in it is inside;
 * other resource kinds (work queues) name no SMs and pass as they are. */
CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *desc, CUdevResource *res, unsigned int n) {
  CUresult r = CALL_REAL(cuDevResourceGenerateDesc_fn, H_RESOURCE_GENERATE_DESC, desc, res, n);
  if (r != CUDA_SUCCESS || desc == NULL || res == NULL) return r;
  int sm = 0, outside = 0;
  for (unsigned i = 0; i < n; i++) {
    if (res[i].type != CU_DEV_RESOURCE_TYPE_SM) continue;
    sm = 1;
    outside |= !is_inside(&res[i]);
  }
  if (sm && !outside) {
    pthread_mutex_lock(&lock);
    descs[descs_next] = *desc;
    descs_next = (descs_next + 1) % MAX_DESCS;
    if (descs_count < MAX_DESCS) descs_count++;
    pthread_mutex_unlock(&lock);
  }
  return r;
}

CUresult cuGreenCtxCreate(CUgreenCtx *phctx, CUdevResourceDesc desc, CUdevice dev,
                          unsigned int flags) {
  if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  if (!desc_inside(desc) || slice_claim_device() != dev)
    return slice_refuse("cuGreenCtxCreate by the program of SMs outside its slice (only the "
                        "claim's GPU's SM resource and splits of it make green contexts)");
  CUresult r = CALL_REAL(cuGreenCtxCreate_fn, H_GREEN_CTX_CREATE, phctx, desc, dev, flags);
  if (r != CUDA_SUCCESS) return r;
  CUcontext ctx = NULL;
  r = DRIVER(cuCtxFromGreenCtx_fn, D_CTX_FROM_GREEN_CTX, &ctx, *phctx);
  pthread_mutex_lock(&lock);
  int full = green_count == MAX_GREENS;
  if (!full && r == CUDA_SUCCESS) {
    greens[green_count].green = *phctx;
    greens[green_count++].ctx = ctx;
  }
  pthread_mutex_unlock(&lock);
  if (full || r != CUDA_SUCCESS) {
    DRIVER(cuGreenCtxDestroy_fn, D_GREEN_CTX_DESTROY, *phctx);
    return full ? slice_refuse("more than 128 green contexts made by the program") : r;
  }
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxDestroy(CUgreenCtx g) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < green_count; i++)
    if (greens[i].green == g) greens[i] = greens[--green_count];
  pthread_mutex_unlock(&lock);
  return CALL_REAL(cuGreenCtxDestroy_fn, H_GREEN_CTX_DESTROY, g);
}
