/* Reaching the real dynamic loader and the real driver underneath the interposer's wrappers.
 * Nothing here takes a lock: a thread inside dlopen (holding the loader's lock) may call CUDA
 * from a library constructor while another thread resolves a driver symbol. */
#ifndef SMSLICE_REAL_H
#define SMSLICE_REAL_H

#include <dlfcn.h>

/* Resolves glibc's dlsym, dlopen and dlmopen; called from the constructor, again on demand. */
void real_loader_init(void);

/* glibc's own dlsym, dlopen and dlmopen (the interposer defines all three itself). */
void *real_dlsym(void *handle, const char *name);
void *real_dlopen(const char *file, int mode);
void *real_dlmopen(Lmid_t lmid, const char *file, int mode);

/* True when fn is glibc's dlsym, dlopen or dlmopen (of any version) named name. */
int is_glibc_loader_fn(const char *name, const void *fn);

/* The real libcuda.so.1 (loaded on first use), or NULL. */
void *real_libcuda(void);

/* A symbol of the real libcuda.so.1, or NULL. */
void *real_cuda(const char *name);

/* A driver entry point cached in *slot: *slot if set, else real_cuda(name), stored. */
void *real_slot(void **slot, const char *name);

/* True when addr lies in a libcuda.so (not in the interposer or elsewhere). */
int in_libcuda(const void *addr);

/* True when addr lies in a libcuda.so other than the one real_libcuda() loaded: a copy of the
 * driver in another link-map namespace (dlmopen). */
int in_other_libcuda(const void *addr);

#endif
