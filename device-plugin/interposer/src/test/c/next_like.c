/* Calls getpid through a wrapping library (wrap_getpid.c) and from the program itself with
 * dlsym(RTLD_NEXT): prints "wrapped-getpid <ok>" and "next-getpid <ok>" (1 when it is the pid). */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef pid_t (*getpid_fn)(void);

int main(void) {
  pid_t pid = (pid_t)syscall(SYS_getpid);
  printf("wrapped-getpid %d\n", getpid() == pid);
  getpid_fn next = (getpid_fn)dlsym(RTLD_NEXT, "getpid");
  printf("next-getpid %d\n", next != NULL && next() == pid);
  return 0;
}
