/* How programs reach the wrappers. The CUDA runtime (static or shared), cuBLAS and PyTorch
 * dlopen libcuda.so.1, look up cuGetProcAddress with dlsym and fetch every other entry point
 * through it; programs linked with -lcuda bind to the exported symbols, which a preloaded
 * library defines first. So the interposer defines dlsym (handing out its wrappers for lookups
 * in libcuda), wraps cuGetProcAddress (handing out its wrappers for the hooked names) and
 * exports the wrappers under the driver's own symbol names. */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "cuda_driver.h"
#include "guard.h"
#include "hooks.h"
#include "log.h"
#include "real.h"
#include "wrappers.h"

hook hooks[H_COUNT] = {
    [H_INIT] = {"cuInit", "cuInit", 2000, 0, (void *)cuInit, NULL},
    [H_GET_PROC_ADDRESS] = {"cuGetProcAddress", "cuGetProcAddress", 11030, 0,
                            (void *)cuGetProcAddress, NULL},
    [H_GET_PROC_ADDRESS_V2] = {"cuGetProcAddress", "cuGetProcAddress_v2", 12000, 0,
                               (void *)cuGetProcAddress_v2, NULL},
    [H_PRIMARY_CTX_RETAIN] = {"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000, 0,
                              (void *)cuDevicePrimaryCtxRetain, NULL},
    [H_CTX_SET_CURRENT] = {"cuCtxSetCurrent", "cuCtxSetCurrent", 4000, 0,
                           (void *)cuCtxSetCurrent, NULL},
    [H_CTX_GET_CURRENT] = {"cuCtxGetCurrent", "cuCtxGetCurrent", 4000, 0,
                           (void *)cuCtxGetCurrent, NULL},
    [H_CTX_PUSH_CURRENT] = {"cuCtxPushCurrent", "cuCtxPushCurrent", 2000, 0,
                            (void *)cuCtxPushCurrent, NULL},
    [H_CTX_PUSH_CURRENT_V2] = {"cuCtxPushCurrent", "cuCtxPushCurrent_v2", 4000, 0,
                               (void *)cuCtxPushCurrent_v2, NULL},
    [H_CTX_DESTROY] = {"cuCtxDestroy", "cuCtxDestroy", 2000, 0, (void *)cuCtxDestroy, NULL},
    [H_CTX_DESTROY_V2] = {"cuCtxDestroy", "cuCtxDestroy_v2", 4000, 0, (void *)cuCtxDestroy_v2,
                          NULL},
    [H_CTX_CREATE] = {"cuCtxCreate", "cuCtxCreate", 2000, 0, (void *)cuCtxCreate, NULL},
    [H_CTX_CREATE_V2] = {"cuCtxCreate", "cuCtxCreate_v2", 3020, 0, (void *)cuCtxCreate_v2, NULL},
    [H_CTX_CREATE_V3] = {"cuCtxCreate", "cuCtxCreate_v3", 11040, 0, (void *)cuCtxCreate_v3, NULL},
    [H_CTX_CREATE_V4] = {"cuCtxCreate", "cuCtxCreate_v4", 12050, 0, (void *)cuCtxCreate_v4, NULL},
    [H_GREEN_CTX_CREATE] = {"cuGreenCtxCreate", "cuGreenCtxCreate", 12040, 0,
                            (void *)cuGreenCtxCreate, NULL},
    [H_STREAM_GET_CTX] = {"cuStreamGetCtx", "cuStreamGetCtx", 9020, 0, (void *)cuStreamGetCtx,
                          NULL},
    [H_STREAM_GET_CTX_PTSZ] = {"cuStreamGetCtx", "cuStreamGetCtx_ptsz", 9020, 1,
                               (void *)cuStreamGetCtx_ptsz, NULL},
    [H_STREAM_GET_CTX_V2] = {"cuStreamGetCtx", "cuStreamGetCtx_v2", 12050, 0,
                             (void *)cuStreamGetCtx_v2, NULL},
    [H_STREAM_GET_CTX_V2_PTSZ] = {"cuStreamGetCtx", "cuStreamGetCtx_v2_ptsz", 12050, 1,
                                  (void *)cuStreamGetCtx_v2_ptsz, NULL},
    [H_CTX_POP_CURRENT] = {"cuCtxPopCurrent", "cuCtxPopCurrent", 2000, 0,
                           (void *)cuCtxPopCurrent, NULL},
    [H_CTX_POP_CURRENT_V2] = {"cuCtxPopCurrent", "cuCtxPopCurrent_v2", 4000, 0,
                              (void *)cuCtxPopCurrent_v2, NULL},
    [H_POINTER_GET_ATTRIBUTE] = {"cuPointerGetAttribute", "cuPointerGetAttribute", 4000, 0,
                                 (void *)cuPointerGetAttribute, NULL},
    [H_POINTER_GET_ATTRIBUTES] = {"cuPointerGetAttributes", "cuPointerGetAttributes", 7000, 0,
                                  (void *)cuPointerGetAttributes, NULL},
    [H_DEVICE_GET_ATTRIBUTE] = {"cuDeviceGetAttribute", "cuDeviceGetAttribute", 2000, 0,
                                (void *)cuDeviceGetAttribute, NULL},
    [H_GL_CTX_CREATE] = {"cuGLCtxCreate", "cuGLCtxCreate", 2000, 0, (void *)cuGLCtxCreate, NULL},
    [H_GL_CTX_CREATE_V2] = {"cuGLCtxCreate", "cuGLCtxCreate_v2", 3020, 0,
                            (void *)cuGLCtxCreate_v2, NULL},
    [H_VDPAU_CTX_CREATE] = {"cuVDPAUCtxCreate", "cuVDPAUCtxCreate", 3010, 0,
                            (void *)cuVDPAUCtxCreate, NULL},
    [H_VDPAU_CTX_CREATE_V2] = {"cuVDPAUCtxCreate", "cuVDPAUCtxCreate_v2", 3020, 0,
                               (void *)cuVDPAUCtxCreate_v2, NULL},
    [H_DEVICE_GET_DEV_RESOURCE] = {"cuDeviceGetDevResource", "cuDeviceGetDevResource", 12040, 0,
                                   (void *)cuDeviceGetDevResource, NULL},
    [H_CTX_GET_DEV_RESOURCE] = {"cuCtxGetDevResource", "cuCtxGetDevResource", 12040, 0,
                                (void *)cuCtxGetDevResource, NULL},
    [H_GREEN_CTX_GET_DEV_RESOURCE] = {"cuGreenCtxGetDevResource", "cuGreenCtxGetDevResource",
                                      12040, 0, (void *)cuGreenCtxGetDevResource, NULL},
    [H_SM_RESOURCE_SPLIT_BY_COUNT] = {"cuDevSmResourceSplitByCount",
                                      "cuDevSmResourceSplitByCount", 12040, 0,
                                      (void *)cuDevSmResourceSplitByCount, NULL},
    [H_SM_RESOURCE_SPLIT] = {"cuDevSmResourceSplit", "cuDevSmResourceSplit", 13010, 0,
                             (void *)cuDevSmResourceSplit, NULL},
    [H_RESOURCE_GENERATE_DESC] = {"cuDevResourceGenerateDesc", "cuDevResourceGenerateDesc", 12040,
                                  0, (void *)cuDevResourceGenerateDesc, NULL},
    [H_GREEN_CTX_DESTROY] = {"cuGreenCtxDestroy", "cuGreenCtxDestroy", 12040, 0,
                             (void *)cuGreenCtxDestroy, NULL},
    [H_GRAPH_ADD_KERNEL_NODE_V2] = {"cuGraphAddKernelNode", "cuGraphAddKernelNode_v2", 12000, 0,
                                    (void *)cuGraphAddKernelNode_v2, NULL},
    [H_GRAPH_KERNEL_NODE_SET_PARAMS_V2] = {"cuGraphKernelNodeSetParams",
                                           "cuGraphKernelNodeSetParams_v2", 12000, 0,
                                           (void *)cuGraphKernelNodeSetParams_v2, NULL},
    [H_GRAPH_EXEC_KERNEL_NODE_SET_PARAMS_V2] = {"cuGraphExecKernelNodeSetParams",
                                                "cuGraphExecKernelNodeSetParams_v2", 12000, 0,
                                                (void *)cuGraphExecKernelNodeSetParams_v2, NULL},
    [H_GRAPH_ADD_NODE] = {"cuGraphAddNode", "cuGraphAddNode", 12020, 0, (void *)cuGraphAddNode,
                          NULL},
    [H_GRAPH_ADD_NODE_V2] = {"cuGraphAddNode", "cuGraphAddNode_v2", 12030, 0,
                             (void *)cuGraphAddNode_v2, NULL},
    [H_GRAPH_NODE_SET_PARAMS] = {"cuGraphNodeSetParams", "cuGraphNodeSetParams", 12020, 0,
                                 (void *)cuGraphNodeSetParams, NULL},
    [H_GRAPH_EXEC_NODE_SET_PARAMS] = {"cuGraphExecNodeSetParams", "cuGraphExecNodeSetParams",
                                      12020, 0, (void *)cuGraphExecNodeSetParams, NULL},
    [H_CTX_RECORD_EVENT] = {"cuCtxRecordEvent", "cuCtxRecordEvent", 12050, 0,
                            (void *)cuCtxRecordEvent, NULL},
    [H_CTX_WAIT_EVENT] = {"cuCtxWaitEvent", "cuCtxWaitEvent", 12050, 0, (void *)cuCtxWaitEvent,
                          NULL},
    [H_GRAPH_ADD_MEMSET_NODE] = {"cuGraphAddMemsetNode", "cuGraphAddMemsetNode", 10000, 0,
                                 (void *)cuGraphAddMemsetNode, NULL},
    [H_GRAPH_ADD_MEMCPY_NODE] = {"cuGraphAddMemcpyNode", "cuGraphAddMemcpyNode", 10000, 0,
                                 (void *)cuGraphAddMemcpyNode, NULL},
    [H_GRAPH_EXEC_MEMSET_NODE_SET_PARAMS] = {"cuGraphExecMemsetNodeSetParams",
                                             "cuGraphExecMemsetNodeSetParams", 10020, 0,
                                             (void *)cuGraphExecMemsetNodeSetParams, NULL},
    [H_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS] = {"cuGraphExecMemcpyNodeSetParams",
                                             "cuGraphExecMemcpyNodeSetParams", 10020, 0,
                                             (void *)cuGraphExecMemcpyNodeSetParams, NULL},
    [H_MEMCPY_PEER] = {"cuMemcpyPeer", "cuMemcpyPeer", 4000, 0, (void *)cuMemcpyPeer, NULL},
    [H_MEMCPY_PEER_PTDS] = {"cuMemcpyPeer", "cuMemcpyPeer_ptds", 7000, 1,
                            (void *)cuMemcpyPeer_ptds, NULL},
    [H_MEMCPY_PEER_ASYNC] = {"cuMemcpyPeerAsync", "cuMemcpyPeerAsync", 4000, 0,
                             (void *)cuMemcpyPeerAsync, NULL},
    [H_MEMCPY_PEER_ASYNC_PTSZ] = {"cuMemcpyPeerAsync", "cuMemcpyPeerAsync_ptsz", 7000, 1,
                                  (void *)cuMemcpyPeerAsync_ptsz, NULL},
    [H_LAUNCH_KERNEL] = {"cuLaunchKernel", "cuLaunchKernel", 4000, 0, (void *)cuLaunchKernel, NULL},
    [H_LAUNCH_KERNEL_PTSZ] = {"cuLaunchKernel", "cuLaunchKernel_ptsz", 7000, 1,
                              (void *)cuLaunchKernel_ptsz, NULL},
    [H_LAUNCH_KERNEL_EX] = {"cuLaunchKernelEx", "cuLaunchKernelEx", 11060, 0,
                            (void *)cuLaunchKernelEx, NULL},
    [H_LAUNCH_KERNEL_EX_PTSZ] = {"cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", 11060, 1,
                                 (void *)cuLaunchKernelEx_ptsz, NULL},
    [H_GRAPH_LAUNCH] = {"cuGraphLaunch", "cuGraphLaunch", 10000, 0, (void *)cuGraphLaunch, NULL},
    [H_GRAPH_LAUNCH_PTSZ] = {"cuGraphLaunch", "cuGraphLaunch_ptsz", 10000, 1,
                             (void *)cuGraphLaunch_ptsz, NULL},
    [H_MEMCPY_ASYNC] = {"cuMemcpyAsync", "cuMemcpyAsync", 4000, 0, (void *)cuMemcpyAsync, NULL},
    [H_MEMCPY_ASYNC_PTSZ] = {"cuMemcpyAsync", "cuMemcpyAsync_ptsz", 7000, 1,
                             (void *)cuMemcpyAsync_ptsz, NULL},
    [H_MEMCPY_HTOD_ASYNC] = {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", 3020, 0,
                             (void *)cuMemcpyHtoDAsync_v2, NULL},
    [H_MEMCPY_HTOD_ASYNC_PTSZ] = {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2_ptsz", 7000, 1,
                                  (void *)cuMemcpyHtoDAsync_v2_ptsz, NULL},
    [H_MEMCPY_DTOH_ASYNC] = {"cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", 3020, 0,
                             (void *)cuMemcpyDtoHAsync_v2, NULL},
    [H_MEMCPY_DTOH_ASYNC_PTSZ] = {"cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2_ptsz", 7000, 1,
                                  (void *)cuMemcpyDtoHAsync_v2_ptsz, NULL},
    [H_MEMCPY_DTOD_ASYNC] = {"cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", 3020, 0,
                             (void *)cuMemcpyDtoDAsync_v2, NULL},
    [H_MEMCPY_DTOD_ASYNC_PTSZ] = {"cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2_ptsz", 7000, 1,
                                  (void *)cuMemcpyDtoDAsync_v2_ptsz, NULL},
};

void *real_of(hook_id id) { return real_slot(&hooks[id].real, hooks[id].symbol); }

int hook_for_proc(const char *base, int cuda_version, unsigned long long flags) {
  int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  int best = -1, best_key = -1;
  for (int i = 0; i < H_COUNT; i++) {
    if (strcmp(hooks[i].base, base) != 0 || hooks[i].since > cuda_version) continue;
    if (hooks[i].per_thread && !per_thread) continue;
    int key = hooks[i].since * 2 + (hooks[i].per_thread == per_thread);
    if (key > best_key) best = i, best_key = key;
  }
  return best;
}

int hook_for_symbol(const char *symbol) {
  for (int i = 0; i < H_COUNT; i++)
    if (strcmp(hooks[i].symbol, symbol) == 0) return i;
  return -1;
}

/* The wrapper to hand out for what the driver returned for base: the version whose exported
 * symbol is that very function when the driver says so, else the one the version rules pick. */
static void *wrap_proc(const char *base, void *fn, int cuda_version, uint64_t flags) {
  int chosen = hook_for_proc(base, cuda_version, flags);
  if (chosen < 0) return fn;
  for (int i = 0; i < H_COUNT; i++)
    if (strcmp(hooks[i].base, base) == 0 && real_cuda(hooks[i].symbol) == fn) chosen = i;
  __atomic_store_n(&hooks[chosen].real, fn, __ATOMIC_RELEASE);
  smslice_debug("cuGetProcAddress(%s, %d, %llu) -> wrapper of %s", base, cuda_version,
                (unsigned long long)flags, hooks[chosen].symbol);
  return hooks[chosen].wrapper;
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, uint64_t flags) {
  cuGetProcAddress_v1_fn real = (cuGetProcAddress_v1_fn)real_of(H_GET_PROC_ADDRESS);
  if (real == NULL) return CUDA_ERROR_NOT_SUPPORTED;
  CUresult r = real(symbol, pfn, cuda_version, flags);
  if (r == CUDA_SUCCESS && symbol != NULL && pfn != NULL && *pfn != NULL)
    *pfn = wrap_proc(symbol, *pfn, cuda_version, flags);
  return r;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, uint64_t flags,
                             int *status) {
  cuGetProcAddress_v2_fn real = (cuGetProcAddress_v2_fn)real_of(H_GET_PROC_ADDRESS_V2);
  if (real == NULL) return CUDA_ERROR_NOT_SUPPORTED;
  CUresult r = real(symbol, pfn, cuda_version, flags, status);
  if (r == CUDA_SUCCESS && symbol != NULL && pfn != NULL && *pfn != NULL)
    *pfn = wrap_proc(symbol, *pfn, cuda_version, flags);
  return r;
}

/* dlsym(RTLD_NEXT, ...) means "after the caller". Forwarded from here it would mean "after the
 * interposer", which differs only when the caller's own object defines the symbol (a wrapper
 * library looking up what it wraps): then search the objects after the caller one by one. */
static void *next_after(const char *name, const void *caller) {
  void *found = real_dlsym(RTLD_NEXT, name);
  Dl_info caller_info, found_info;
  struct link_map *map = NULL;
  if (found == NULL || dladdr1(caller, &caller_info, (void **)&map, RTLD_DL_LINKMAP) == 0 ||
      dladdr(found, &found_info) == 0 || found_info.dli_fbase != caller_info.dli_fbase)
    return found;
  for (map = map->l_next; map != NULL; map = map->l_next) {
    void *handle = dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) continue;
    void *symbol = real_dlsym(handle, name);
    dlclose(handle);
    if (symbol != NULL && dladdr(symbol, &found_info) != 0 &&
        strcmp(found_info.dli_fname, map->l_name) == 0)
      return symbol;
  }
  return NULL;
}

/* A lookup in a copy of the driver that another link-map namespace loaded (dlmopen) is answered
 * from the main namespace's driver: one driver, the wrapped one, serves the process. */
EXPORTED void *dlsym(void *handle, const char *name) {
  void *found = handle == RTLD_NEXT ? next_after(name, __builtin_return_address(0))
                                    : real_dlsym(handle, name);
  if (found == NULL || !in_libcuda(found)) return found;
  if (in_other_libcuda(found) && (found = real_cuda(name)) == NULL) return NULL;
  if (strncmp(name, "cu", 2) != 0) return found;
  int id = hook_for_symbol(name);
  if (id < 0) return found;
  __atomic_store_n(&hooks[id].real, found, __ATOMIC_RELEASE);
  smslice_debug("dlsym(%s) -> wrapper", name);
  return hooks[id].wrapper;
}
