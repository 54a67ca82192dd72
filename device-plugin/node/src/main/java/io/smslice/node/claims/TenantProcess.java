package io.smslice.node.claims;

/**
 * An unmodified program's process attached to a claim.
 *
 * @param hostPid its pid on the node (as NVML reports it), or -1 when unknown
 * @param container its container id, or ""
 */
public record TenantProcess(int hostPid, String container, String command) {}
