/* The process's registration with its claim's agent: the open ATTACH connection, by which the
 * agent counts the process on the claim (and the operator holds a resize while it runs). */
#ifndef SMSLICE_REGISTRATION_H
#define SMSLICE_REGISTRATION_H

#include <stddef.h>

#include "agent_attach.h"

/* Registers the process, waiting for an agent that is not up yet or restarting for up to
 * SMSLICE_ATTACH_TIMEOUT seconds (default 60; 0 tries once). Returns 0, or -1 with the reason in
 * why. */
int registration_open(attach_answer *answer, char *why, size_t why_len);

/* After a successful registration_open, outside any lock of the interposer's (creating a thread
 * takes the dynamic loader's lock on glibc before 2.34): starts the thread that keeps the
 * registration for the life of the process (when the agent restarts, or the program closes the
 * descriptor, it registers again) and returns once that thread waits on it. */
void registration_keep(void);

/* What a failed registration does: by default prints why and ends the process with status 75
 * (so that a pod's log and restarts show it, where a framework would otherwise fall back to the
 * CPU in silence); with SMSLICE_ATTACH_FAILURE=refuse it prints why and CUDA calls fail. */
void registration_failed(const char *why);

/* The fork handlers: a fork waits for an ATTACH exchange in progress, and the child drops the
 * parent's registration (it registers itself, with its own pid, on first CUDA use). */
void registration_before_fork(void);
void registration_after_fork_parent(void);
void registration_after_fork_child(void);

#endif
