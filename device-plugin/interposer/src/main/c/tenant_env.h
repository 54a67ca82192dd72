/* The claim's variables. The node side sets them in the container's environment and mounts the
 * same values, for this container alone, as a file: a process whose environment was scrubbed
 * (env -i, sudo, a launcher that resets it) or that set its own MPS pipe still gets the claim's. */
#ifndef SMSLICE_TENANT_ENV_H
#define SMSLICE_TENANT_ENV_H

/* Where the node side mounts the file; SMSLICE_TENANT_ENV names another (tests). */
#define TENANT_ENV_FILE "/run/smslice/tenant.env"

/* Applies the file to the environment: the claim's variables the process lacks (or has empty)
 * are set, and the MPS variables are set to the file's values whatever the process had, since a
 * process outside the claim's MPS server is time-sliced against every tenant of the GPU. Runs
 * once; called from the constructor and again before the first ATTACH, whichever is first. */
void tenant_env_restore(void);

/* A claim variable (SMSLICE_SOCKET, SMSLICE_CLAIM, SMSLICE_TOKEN, SMSLICE_GUARD, SMSLICE_PRIORITY): the environment's value if set
 * and not empty (ignored in setuid programs, as secure_getenv does), else the file's, else NULL. */
const char *tenant_setting(const char *name);

#endif
