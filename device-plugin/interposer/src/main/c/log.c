#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One write(2) per line, so lines from several threads or processes never interleave. */
static void emit(const char *level, const char *fmt, va_list args) {
  char line[1024];
  int n = snprintf(line, sizeof line, "smslice: %s[pid %d] ", level, (int)getpid());
  if (n < 0) return;
  int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, args);
  if (m < 0) return;
  size_t len = strlen(line);
  line[len++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, len);
  (void)ignored;
}

void smslice_error(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  emit("", fmt, args);
  va_end(args);
}

void smslice_debug(const char *fmt, ...) {
  const char *level = secure_getenv("SMSLICE_INTERPOSER_LOG");
  if (level == NULL || strcmp(level, "debug") != 0) return;
  va_list args;
  va_start(args, fmt);
  emit("debug ", fmt, args);
  va_end(args);
}
