/* The driver entry points the interposer wraps, and where each wrapper finds the real one. */
#ifndef SMSLICE_HOOKS_H
#define SMSLICE_HOOKS_H

typedef enum {
  H_INIT,
  H_GET_PROC_ADDRESS,
  H_GET_PROC_ADDRESS_V2,
  H_PRIMARY_CTX_RETAIN,
  H_CTX_SET_CURRENT,
  H_CTX_GET_CURRENT,
  H_CTX_PUSH_CURRENT,
  H_CTX_PUSH_CURRENT_V2,
  H_CTX_DESTROY,
  H_CTX_DESTROY_V2,
  H_CTX_CREATE,
  H_CTX_CREATE_V2,
  H_CTX_CREATE_V3,
  H_CTX_CREATE_V4,
  H_GREEN_CTX_CREATE,
  H_STREAM_GET_CTX,
  H_STREAM_GET_CTX_PTSZ,
  H_STREAM_GET_CTX_V2,
  H_STREAM_GET_CTX_V2_PTSZ,
  H_CTX_POP_CURRENT,
  H_CTX_POP_CURRENT_V2,
  H_POINTER_GET_ATTRIBUTE,
  H_POINTER_GET_ATTRIBUTES,
  H_DEVICE_GET_ATTRIBUTE,
  H_GL_CTX_CREATE,
  H_GL_CTX_CREATE_V2,
  H_VDPAU_CTX_CREATE,
  H_VDPAU_CTX_CREATE_V2,
  H_DEVICE_GET_DEV_RESOURCE,
  H_CTX_GET_DEV_RESOURCE,
  H_GREEN_CTX_GET_DEV_RESOURCE,
  H_SM_RESOURCE_SPLIT_BY_COUNT,
  H_SM_RESOURCE_SPLIT,
  H_RESOURCE_GENERATE_DESC,
  H_GREEN_CTX_DESTROY,
  H_GRAPH_ADD_KERNEL_NODE_V2,
  H_GRAPH_KERNEL_NODE_SET_PARAMS_V2,
  H_GRAPH_EXEC_KERNEL_NODE_SET_PARAMS_V2,
  H_GRAPH_ADD_NODE,
  H_GRAPH_ADD_NODE_V2,
  H_GRAPH_NODE_SET_PARAMS,
  H_GRAPH_EXEC_NODE_SET_PARAMS,
  H_CTX_RECORD_EVENT,
  H_CTX_WAIT_EVENT,
  H_GRAPH_ADD_MEMSET_NODE,
  H_GRAPH_ADD_MEMCPY_NODE,
  H_GRAPH_EXEC_MEMSET_NODE_SET_PARAMS,
  H_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS,
  H_MEMCPY_PEER,
  H_MEMCPY_PEER_PTDS,
  H_MEMCPY_PEER_ASYNC,
  H_MEMCPY_PEER_ASYNC_PTSZ,
  /* The interference guard's (guard.c). */
  H_LAUNCH_KERNEL,
  H_LAUNCH_KERNEL_PTSZ,
  H_LAUNCH_KERNEL_EX,
  H_LAUNCH_KERNEL_EX_PTSZ,
  H_GRAPH_LAUNCH,
  H_GRAPH_LAUNCH_PTSZ,
  H_MEMCPY_ASYNC,
  H_MEMCPY_ASYNC_PTSZ,
  H_MEMCPY_HTOD_ASYNC,
  H_MEMCPY_HTOD_ASYNC_PTSZ,
  H_MEMCPY_DTOH_ASYNC,
  H_MEMCPY_DTOH_ASYNC_PTSZ,
  H_MEMCPY_DTOD_ASYNC,
  H_MEMCPY_DTOD_ASYNC_PTSZ,
  H_COUNT
} hook_id;

typedef struct {
  const char *base;   /* the name cuGetProcAddress is asked for */
  const char *symbol; /* the exported symbol of this version */
  int since;          /* the CUDA version (1000 * major + 10 * minor) that introduced it */
  int per_thread;     /* the per-thread default stream variant (_ptsz) */
  void *wrapper;
  void *real;         /* the driver's entry point, set on first use */
} hook;

extern hook hooks[H_COUNT];

/* The real entry point of a hook. */
void *real_of(hook_id id);

/* Calls a hook's real entry point, or gives CUDA_ERROR_NOT_SUPPORTED where the driver lacks it
 * (a program linked against a newer driver binds to the interposer's export of it). */
#define CALL_REAL(fn_type, id, ...)                                \
  ({                                                               \
    fn_type fn_ = (fn_type)real_of(id);                            \
    fn_ == NULL ? CUDA_ERROR_NOT_SUPPORTED : fn_(__VA_ARGS__);     \
  })

/* The hook cuGetProcAddress(base, version, flags) resolves to, or -1 when it is not hooked. */
int hook_for_proc(const char *base, int cuda_version, unsigned long long flags);

/* The hook of an exported symbol name, or -1. */
int hook_for_symbol(const char *symbol);

#endif
