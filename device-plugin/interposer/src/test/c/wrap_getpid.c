/* A library that wraps a libc function the usual way, with dlsym(RTLD_NEXT): beside the
 * interposer (which defines dlsym) it must still get libc's function, not its own. */
#include <dlfcn.h>
#include <stddef.h>
#include <sys/types.h>

typedef pid_t (*getpid_fn)(void);

__attribute__((visibility("default"))) pid_t getpid(void) {
  getpid_fn next = (getpid_fn)dlsym(RTLD_NEXT, "getpid");
  return next == NULL || next == getpid ? -1 : next();
}
