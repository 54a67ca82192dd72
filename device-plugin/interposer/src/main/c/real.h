/* Reaching the real dynamic loader and the real driver underneath the interposer's wrappers. */
#ifndef SMSLICE_REAL_H
#define SMSLICE_REAL_H

/* glibc's own dlsym (the interposer defines dlsym itself). */
void *real_dlsym(void *handle, const char *name);

/* A symbol of the real libcuda.so.1 (loaded on first use), or NULL. */
void *real_cuda(const char *name);

/* A driver entry point cached in *slot: *slot if set, else real_cuda(name), stored. */
void *real_slot(void **slot, const char *name);

/* True when addr lies in the real libcuda (not in the interposer or elsewhere). */
int in_libcuda(const void *addr);

#endif
