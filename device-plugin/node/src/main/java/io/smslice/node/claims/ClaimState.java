package io.smslice.node.claims;

import java.util.List;

/**
 * One claim bound to this node as the agent serves it.
 *
 * @param groups the claim's SM groups in its GPU's split
 * @param message why the claim is not served, when it is not
 * @param processes unmodified programs' processes attached to the claim through the interposer
 */
public record ClaimState(
    String namespace,
    String name,
    String gpuUuid,
    List<Integer> groups,
    boolean serving,
    String message,
    List<TenantProcess> processes) {
  public ClaimState {
    groups = List.copyOf(groups);
    processes = List.copyOf(processes);
  }

  public String key() {
    return namespace + "/" + name;
  }
}
