/* A library with a RUNPATH of its own ($ORIGIN/private) that opens a library found only there. */
#include <dlfcn.h>
#include <stddef.h>

int open_hidden(int deep) {
  return dlopen("libhidden_like.so", RTLD_NOW | RTLD_LOCAL | (deep ? RTLD_DEEPBIND : 0)) != NULL;
}
