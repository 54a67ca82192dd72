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

/* The hook cuGetProcAddress(base, version, flags) resolves to, or -1 when it is not hooked. */
int hook_for_proc(const char *base, int cuda_version, unsigned long long flags);

/* The hook of an exported symbol name, or -1. */
int hook_for_symbol(const char *symbol);

#endif
