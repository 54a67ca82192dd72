#include "tenant_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

typedef struct {
  const char *name;
  int authoritative; /* the file's value replaces the process's */
  char value[1024];
  int present;
} variable;

/* Only what the interposer and the CUDA driver read: a file cannot set anything else. */
static variable variables[] = {
    {"SMSLICE_SOCKET", 0, "", 0},
    {"SMSLICE_CLAIM", 0, "", 0},
    {"SMSLICE_TOKEN", 0, "", 0},
    {"CUDA_MPS_PIPE_DIRECTORY", 1, "", 0},
    {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", 1, "", 0},
    {"SMSLICE_GUARD", 0, "", 0},
    {"SMSLICE_PRIORITY", 0, "", 0},
};
enum { VARIABLES = sizeof variables / sizeof variables[0] };

static int done; /* 0 not yet, 1 being read, 2 read */

static variable *find(const char *name) {
  for (int i = 0; i < VARIABLES; i++)
    if (strcmp(name, variables[i].name) == 0) return &variables[i];
  return NULL;
}

static void read_file(void) {
  const char *path = secure_getenv("SMSLICE_TENANT_ENV");
  if (path == NULL || path[0] == '\0') path = TENANT_ENV_FILE;
  FILE *file = fopen(path, "re");
  if (file == NULL) return; /* not a transparent container, or an old node: attach says why */
  char line[2048];
  while (fgets(line, sizeof line, file) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    char *eq = strchr(line, '=');
    if (eq == NULL) continue;
    *eq = '\0';
    variable *v = find(line);
    if (v == NULL || strlen(eq + 1) >= sizeof v->value) continue;
    strcpy(v->value, eq + 1);
    v->present = 1;
  }
  fclose(file);
}

void tenant_env_restore(void) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&done, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return;
  read_file();
  int restored = 0;
  for (int i = 0; i < VARIABLES; i++) {
    variable *v = &variables[i];
    if (!v->present) continue;
    const char *had = getenv(v->name);
    int missing = had == NULL || had[0] == '\0';
    if ((missing || (v->authoritative && strcmp(had, v->value) != 0)) &&
        setenv(v->name, v->value, 1) == 0)
      restored++;
  }
  __atomic_store_n(&done, 2, __ATOMIC_RELEASE);
  smslice_debug("set %d variables of the claim from the tenant file", restored);
}

const char *tenant_setting(const char *name) {
  const char *v = secure_getenv(name);
  if (v != NULL && v[0] != '\0') return v;
  if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != 2) return NULL;
  variable *file = find(name);
  return file != NULL && file->present && file->value[0] != '\0' ? file->value : NULL;
}
