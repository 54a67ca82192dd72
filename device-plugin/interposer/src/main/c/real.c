#include "real.h"

#include <link.h>
#include <string.h>

#include "log.h"

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);

/* Each is written once with the same value by whichever thread gets there first. */
static dlsym_fn glibc_dlsym, glibc_dlsym_old;
static dlopen_fn glibc_dlopen, glibc_dlopen_old;
static dlmopen_fn glibc_dlmopen, glibc_dlmopen_old;
static void *libcuda;

/* The loader functions moved into libc proper in glibc 2.34; older systems have only the first
 * versions. Both are looked up, as a library may have bound to either. */
void real_loader_init(void) {
  if (__atomic_load_n(&glibc_dlsym, __ATOMIC_ACQUIRE) != NULL) return;
  glibc_dlsym_old = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  glibc_dlopen_old = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
  glibc_dlmopen_old = (dlmopen_fn)dlvsym(RTLD_NEXT, "dlmopen", "GLIBC_2.3.4");
  dlopen_fn o = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", "GLIBC_2.34");
  dlmopen_fn m = (dlmopen_fn)dlvsym(RTLD_NEXT, "dlmopen", "GLIBC_2.34");
  dlsym_fn s = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  __atomic_store_n(&glibc_dlopen, o != NULL ? o : glibc_dlopen_old, __ATOMIC_RELEASE);
  __atomic_store_n(&glibc_dlmopen, m != NULL ? m : glibc_dlmopen_old, __ATOMIC_RELEASE);
  __atomic_store_n(&glibc_dlsym, s != NULL ? s : glibc_dlsym_old, __ATOMIC_RELEASE);
  if (glibc_dlsym == NULL) smslice_error("cannot find glibc's dlsym; symbol lookups fail");
}

void *real_dlsym(void *handle, const char *name) {
  real_loader_init();
  return glibc_dlsym == NULL ? NULL : glibc_dlsym(handle, name);
}

void *real_dlopen(const char *file, int mode) {
  real_loader_init();
  return glibc_dlopen == NULL ? NULL : glibc_dlopen(file, mode);
}

void *real_dlmopen(Lmid_t lmid, const char *file, int mode) {
  real_loader_init();
  return glibc_dlmopen == NULL ? NULL : glibc_dlmopen(lmid, file, mode);
}

int is_glibc_loader_fn(const char *name, const void *fn) {
  real_loader_init();
  if (fn == NULL) return 0;
  if (strcmp(name, "dlsym") == 0) return fn == glibc_dlsym || fn == glibc_dlsym_old;
  if (strcmp(name, "dlopen") == 0) return fn == glibc_dlopen || fn == glibc_dlopen_old;
  if (strcmp(name, "dlmopen") == 0) return fn == glibc_dlmopen || fn == glibc_dlmopen_old;
  return 0;
}

/* Loaded by the first thread that needs it; a second concurrent load only takes a reference. */
void *real_libcuda(void) {
  void *h = __atomic_load_n(&libcuda, __ATOMIC_ACQUIRE);
  if (h != NULL) return h;
  h = real_dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    smslice_error("cannot load libcuda.so.1: %s", dlerror());
    return NULL;
  }
  void *expected = NULL;
  if (!__atomic_compare_exchange_n(&libcuda, &expected, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    dlclose(h);
    h = expected;
  }
  return h;
}

void *real_cuda(const char *name) {
  void *h = real_libcuda();
  return h == NULL ? NULL : real_dlsym(h, name);
}

void *real_slot(void **slot, const char *name) {
  void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (fn == NULL) {
    fn = real_cuda(name);
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

static int libcuda_file(const void *addr, struct link_map **map) {
  Dl_info info;
  if (addr == NULL || dladdr1(addr, &info, (void **)map, RTLD_DL_LINKMAP) == 0 ||
      info.dli_fname == NULL)
    return 0;
  const char *base = strrchr(info.dli_fname, '/');
  base = base == NULL ? info.dli_fname : base + 1;
  return strncmp(base, "libcuda.so", 10) == 0;
}

int in_libcuda(const void *addr) {
  struct link_map *map;
  return libcuda_file(addr, &map);
}

int in_other_libcuda(const void *addr) {
  struct link_map *map, *ours = NULL;
  if (!libcuda_file(addr, &map)) return 0;
  void *h = real_libcuda();
  return h != NULL && dlinfo(h, RTLD_DI_LINKMAP, &ours) == 0 && ours != map;
}
