#include "real.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "log.h"

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn glibc_dlsym;
static pthread_once_t dlsym_once = PTHREAD_ONCE_INIT;

static void find_dlsym(void) {
  /* dlsym moved into libc proper in glibc 2.34; older systems only have the 2.2.5 version. */
  glibc_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (glibc_dlsym == NULL) glibc_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

void *real_dlsym(void *handle, const char *name) {
  pthread_once(&dlsym_once, find_dlsym);
  if (glibc_dlsym == NULL) {
    smslice_error("cannot find glibc's dlsym; symbol lookups fail");
    return NULL;
  }
  return glibc_dlsym(handle, name);
}

static void *libcuda;
static pthread_once_t libcuda_once = PTHREAD_ONCE_INIT;

static void open_libcuda(void) {
  libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda == NULL) smslice_error("cannot load libcuda.so.1: %s", dlerror());
}

void *real_cuda(const char *name) {
  pthread_once(&libcuda_once, open_libcuda);
  return libcuda == NULL ? NULL : real_dlsym(libcuda, name);
}

void *real_slot(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    fn = real_cuda(name);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

int in_libcuda(const void *addr) {
  Dl_info info;
  if (addr == NULL || dladdr(addr, &info) == 0 || info.dli_fname == NULL) return 0;
  const char *base = strrchr(info.dli_fname, '/');
  base = base == NULL ? info.dli_fname : base + 1;
  return strncmp(base, "libcuda.so", 10) == 0;
}
