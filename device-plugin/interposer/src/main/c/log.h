/* One-line messages on stderr, prefixed "smslice:" so they stand out in a tenant's log. */
#ifndef SMSLICE_LOG_H
#define SMSLICE_LOG_H

void smslice_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void smslice_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
