/* The claim's variables for a process whose environment was scrubbed (env -i, sudo, a launcher
 * that resets it): the node side mounts the same values, for this container alone, as a file. */
#ifndef SMSLICE_TENANT_ENV_H
#define SMSLICE_TENANT_ENV_H

/* Where the node side mounts the file; SMSLICE_TENANT_ENV names another (tests). */
#define TENANT_ENV_FILE "/run/smslice/tenant.env"

/* Sets each variable of the file that this process lacks; never overrides one it has. */
void tenant_env_restore(void);

#endif
