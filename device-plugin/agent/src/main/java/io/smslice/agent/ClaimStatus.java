package io.smslice.agent;

import java.util.List;

/**
 * How the agent serves one claim bound to this node, for the node's SliceNode.
 *
 * @param serving false when the agent could not make the claim's green context or start its worker
 * @param message why not, when not serving
 */
public record ClaimStatus(
    String namespace,
    String name,
    String gpuUuid,
    List<Integer> groups,
    boolean serving,
    String message) {
  public ClaimStatus {
    groups = List.copyOf(groups);
  }

  public String key() {
    return namespace + "/" + name;
  }
}
