/* Loads the %smid probe library (smid_probe.cu) the way Julia or Python's setdlopenflags does
 * (RTLD_DEEPBIND), into a new link-map namespace (dlmopen), or plainly, and prints the distinct SMs
 * its kernel ran on, twice: loader_probe plain|deepbind|dlmopen LIBRARY */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  void *lib = strcmp(argv[1], "deepbind") == 0 ? dlopen(argv[2], RTLD_NOW | RTLD_DEEPBIND)
              : strcmp(argv[1], "dlmopen") == 0 ? dlmopen(LM_ID_NEWLM, argv[2], RTLD_NOW)
                                                : dlopen(argv[2], RTLD_NOW);
  if (lib == NULL) {
    printf("mode=%s error=%s\n", argv[1], dlerror());
    return 1;
  }
  int (*distinct)(void) = (int (*)(void))dlsym(lib, "smslice_distinct_sms");
  if (distinct == NULL) return 1;
  int first = distinct(), second = distinct();
  printf("mode=%s distinct_sms=%d second_distinct_sms=%d\n", argv[1], first, second);
  return 0;
}
