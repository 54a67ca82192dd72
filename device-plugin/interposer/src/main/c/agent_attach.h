/* The ATTACH exchange with the claim's agent (docs/tenant-protocol.md, op 18). */
#ifndef SMSLICE_AGENT_ATTACH_H
#define SMSLICE_AGENT_ATTACH_H

#include <stddef.h>

#define SMSLICE_MAX_GROUPS 256

typedef struct {
  char gpu_uuid[96];
  int min_partition;
  int split_entries;
  int group_count;
  int groups[SMSLICE_MAX_GROUPS];
  int sms;
} attach_answer;

/* Connects to the claim's socket (SMSLICE_SOCKET, SMSLICE_CLAIM, SMSLICE_TOKEN), registers this
 * process and reads the slice. Returns the open connection (close-on-exec), which the caller keeps
 * for the life of the process, or -1 with a reason in `why` and *transient set when a later
 * attempt may succeed (no agent yet, a dropped connection, no answer, UNAVAILABLE). */
int agent_attach(attach_answer *answer, char *why, size_t why_len, int *transient);

#endif
