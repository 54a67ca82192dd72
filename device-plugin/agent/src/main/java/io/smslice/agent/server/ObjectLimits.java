package io.smslice.agent.server;

/**
 * What one session may create, so that a tenant cannot exhaust the agent's heap or the driver's
 * resources: counts of streams, events, graphs, modules and kernel handles, and operations captured
 * into one graph. Module images also count against the claim's memory quota (on a GPU their code
 * and globals take device memory; the agent keeps the image to load it again on resize).
 */
public record ObjectLimits(
    int streams, int events, int graphs, int modules, int functions, int graphOperations) {
  public static final ObjectLimits DEFAULT = new ObjectLimits(256, 4096, 1024, 256, 4096, 10_000);
}
