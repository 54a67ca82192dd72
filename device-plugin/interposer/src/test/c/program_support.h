/* What the test programs share: reaching the (fake) driver the way the CUDA runtime does
 * (dlopen("libcuda.so.1"), dlsym of cuGetProcAddress_v2, every other entry point through it) and
 * printing one line per step, "<step> <CUresult> <what the fake saw>", for the tests to check. */
#ifndef SMSLICE_PROGRAM_SUPPORT_H
#define SMSLICE_PROGRAM_SUPPORT_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*stream_create_fn)(CUstream *, unsigned int);
typedef CUresult (*stream_priority_fn)(CUstream *, unsigned int, int);
typedef CUresult (*graph_create_fn)(CUgraph *, unsigned int);
typedef CUresult (*graph_instantiate_fn)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);

#define SHARED __attribute__((unused))

typedef int (*fakecuda_refs_fn)(CUdevice);
SHARED static void *libcuda;
SHARED static cuGetProcAddress_v2_fn get_proc;
SHARED static fakecuda_last_launch_fn last_launch;
SHARED static fakecuda_describe_fn describe;
SHARED static fakecuda_real_fn fake_real;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

SHARED static void *proc(const char *name, unsigned long long flags) {
  void *fn = NULL;
  int status;
  if (get_proc(name, &fn, 13000, flags, &status) != CUDA_SUCCESS) {
    fprintf(stderr, "runtime_like: no %s\n", name);
    exit(2);
  }
  return fn;
}
#define PROC(type, name) ((type)proc(name, 0))

SHARED static void line(const char *step, CUresult r, const char *seen) {
  pthread_mutex_lock(&print_lock);
  printf("%s %d %s\n", step, r, r == CUDA_SUCCESS ? seen : "-");
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
}

SHARED static void launch_on(const char *step, CUstream s, unsigned long long flags) {
  launch_fn launch = (launch_fn)proc("cuLaunchKernel", flags);
  line(step, launch(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), last_launch());
}

SHARED static CUresult primary_of(int ordinal, CUcontext *ctx) {
  CUdevice dev;
  CUresult r = PROC(cuDeviceGet_fn, "cuDeviceGet")(&dev, ordinal);
  return r != CUDA_SUCCESS ? r : PROC(cuDevicePrimaryCtxRetain_fn, "cuDevicePrimaryCtxRetain")(ctx, dev);
}

/* What cudaSetDevice(1) and a first runtime call do on a thread. */
SHARED static CUresult runtime_thread_setup(int push) {
  CUcontext primary = NULL;
  CUresult r = primary_of(1, &primary);
  if (r != CUDA_SUCCESS) return r;
  return push ? PROC(cuCtxPushCurrent_fn, "cuCtxPushCurrent")(primary)
              : PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(primary);
}

/* Opens the driver and its test hooks; 0 on success. */
SHARED static int open_driver(void) {
  libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda == NULL) {
    fprintf(stderr, "test program: %s\n", dlerror());
    return -1;
  }
  get_proc = (cuGetProcAddress_v2_fn)dlsym(libcuda, "cuGetProcAddress_v2");
  last_launch = (fakecuda_last_launch_fn)dlsym(libcuda, "fakecuda_last_launch");
  describe = (fakecuda_describe_fn)dlsym(libcuda, "fakecuda_describe");
  fake_real = (fakecuda_real_fn)dlsym(libcuda, "fakecuda_real");
  return get_proc && last_launch && describe && fake_real ? 0 : -1;
}

#endif
