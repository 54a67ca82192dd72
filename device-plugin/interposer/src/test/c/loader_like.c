/* Loads the runtime-like program as a library, with RTLD_DEEPBIND or with dlmopen into a new
 * namespace, and runs one of its scenarios: loader_like deepbind|dlmopen SCENARIO. */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

typedef int (*main_fn)(int, char **);

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  char path[4096];
  snprintf(path, sizeof path, "%s/libruntime_like.so", dirname(strdup(argv[0])));
  void *lib = strcmp(argv[1], "deepbind") == 0
                  ? dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
                  : dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "loader_like: %s\n", dlerror());
    return 2;
  }
  main_fn run = (main_fn)dlsym(lib, "runtime_like_main");
  char *args[] = {argv[0], argv[2], NULL};
  return run == NULL ? 2 : run(2, args);
}
