#include "tenant_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Only what the interposer and the CUDA driver read: a file cannot set anything else. */
static const char *const RESTORED[] = {
    "SMSLICE_SOCKET", "SMSLICE_CLAIM", "SMSLICE_TOKEN", "CUDA_MPS_PIPE_DIRECTORY",
    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "SMSLICE_GUARD", "SMSLICE_PRIORITY",
};

static int restorable(const char *name) {
  for (size_t i = 0; i < sizeof RESTORED / sizeof RESTORED[0]; i++)
    if (strcmp(name, RESTORED[i]) == 0) return 1;
  return 0;
}

void tenant_env_restore(void) {
  if (getenv("SMSLICE_CLAIM") != NULL && getenv("SMSLICE_TOKEN") != NULL) return;
  const char *path = getenv("SMSLICE_TENANT_ENV");
  if (path == NULL || path[0] == '\0') path = TENANT_ENV_FILE;
  FILE *file = fopen(path, "re");
  if (file == NULL) return; /* not a transparent container, or an old node: attach says why */
  char line[2048];
  int restored = 0;
  while (fgets(line, sizeof line, file) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    char *eq = strchr(line, '=');
    if (eq == NULL) continue;
    *eq = '\0';
    if (restorable(line) && getenv(line) == NULL && setenv(line, eq + 1, 0) == 0) restored++;
  }
  fclose(file);
  smslice_debug("restored %d variables of the claim from %s", restored, path);
}
