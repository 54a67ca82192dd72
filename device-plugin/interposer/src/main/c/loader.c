/* The interposer's dlopen and dlmopen. An ordinary dlopen in the main namespace is glibc's own,
 * reached by a tail call so that glibc still sees the program as the caller (its RUNPATH, its
 * namespace). What the loader would not bind to the interposer has its imports rebound after it
 * is loaded (imports.c): a library loaded with RTLD_DEEPBIND and what it brings along, and every
 * object of a namespace other than the main one (dlmopen, and later loads from inside one). */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imports.h"
#include "real.h"
#include "wrappers.h"

EXPORTED void *dlopen(const char *, int);
EXPORTED void *dlmopen(Lmid_t, const char *, int);

static struct link_map *map_of(const void *addr) {
  Dl_info info;
  struct link_map *map = NULL;
  return dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) != 0 ? map : NULL;
}

static Lmid_t namespace_of(struct link_map *map) {
  Lmid_t lmid = LM_ID_BASE;
  if (map != NULL) dlinfo(map, RTLD_DI_LMID, &lmid);
  return lmid;
}

static struct link_map *last_of(struct link_map *map) {
  while (map != NULL && map->l_next != NULL) map = map->l_next;
  return map;
}

static struct link_map *first_of(struct link_map *map) {
  while (map != NULL && map->l_prev != NULL) map = map->l_prev;
  return map;
}

/* A bare name as the caller's dlopen would find it through the caller's own RPATH or RUNPATH
 * (the call below is the interposer's, so glibc would search the interposer's): the first
 * directory of the caller's search list holding the file, unless that directory is on the
 * interposer's list too (then glibc finds the same file from here). */
static const char *as_caller_finds(const void *caller, const char *file, char *path, size_t cap) {
  struct link_map *from = map_of(caller), *self = map_of((void *)as_caller_finds);
  if (file == NULL || strchr(file, '/') != NULL || from == NULL || self == NULL) return file;
  Dl_serinfo size, *theirs = NULL, *ours = NULL;
  const char *found = file;
  if (dlinfo(from, RTLD_DI_SERINFOSIZE, &size) != 0 || (theirs = malloc(size.dls_size)) == NULL)
    return file;
  *theirs = size;
  Dl_serinfo own;
  if (dlinfo(from, RTLD_DI_SERINFO, theirs) == 0 && dlinfo(self, RTLD_DI_SERINFOSIZE, &own) == 0 &&
      (ours = malloc(own.dls_size)) != NULL) {
    *ours = own;
    if (dlinfo(self, RTLD_DI_SERINFO, ours) != 0) ours->dls_cnt = 0;
    for (unsigned i = 0; i < theirs->dls_cnt; i++) {
      const char *dir = theirs->dls_serpath[i].dls_name;
      if ((size_t)snprintf(path, cap, "%s/%s", dir, file) >= cap || access(path, F_OK) != 0)
        continue;
      int shared = 0;
      for (unsigned j = 0; j < ours->dls_cnt; j++)
        shared |= strcmp(dir, ours->dls_serpath[j].dls_name) == 0;
      if (!shared) found = path;
      break;
    }
  }
  free(ours);
  free(theirs);
  return found;
}

static void rebind_after(struct link_map *map, int other_namespace) {
  for (; map != NULL; map = map->l_next) imports_rebind(map, other_namespace);
}

/* Loads into lmid for the caller and rebinds what the load added (all of another namespace). */
static void *load_and_rebind(Lmid_t lmid, const char *file, int mode, const void *caller) {
  char path[4096];
  const char *name = as_caller_finds(caller, file, path, sizeof path);
  struct link_map *before = lmid == LM_ID_BASE ? last_of(map_of((void *)load_and_rebind)) : NULL;
  void *handle = lmid == LM_ID_BASE ? real_dlopen(name, mode) : real_dlmopen(lmid, name, mode);
  if (handle == NULL) return NULL;
  struct link_map *loaded = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &loaded) != 0) return handle;
  Lmid_t where = namespace_of(loaded);
  if (where != LM_ID_BASE)
    rebind_after(first_of(loaded), 1);
  else if (mode & RTLD_DEEPBIND)
    rebind_after(before != NULL ? before->l_next : NULL, 0);
  return handle;
}

/* Whether a dlopen from caller loads what the loader would not bind to the interposer. Its own
 * function, so that dlopen keeps no locals and its ordinary path stays a tail call. */
__attribute__((noinline)) static Lmid_t needs_rebinding(const void *caller, int mode) {
  Lmid_t lmid = namespace_of(map_of(caller));
  return lmid != LM_ID_BASE || (mode & RTLD_DEEPBIND) ? lmid : -1;
}

EXPORTED void *dlopen(const char *file, int mode) {
  const void *caller = __builtin_return_address(0);
  Lmid_t lmid = file == NULL ? -1 : needs_rebinding(caller, mode);
  if (lmid != -1) return load_and_rebind(lmid, file, mode, caller);
  return real_dlopen(file, mode);
}

EXPORTED void *dlmopen(Lmid_t lmid, const char *file, int mode) {
  return load_and_rebind(lmid, file, mode, __builtin_return_address(0));
}
