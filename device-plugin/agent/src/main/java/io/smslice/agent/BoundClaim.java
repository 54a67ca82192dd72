package io.smslice.agent;

import java.util.List;

/** A claim bound to a green-mode GPU of this node, as the agent needs it. */
public record BoundClaim(
    String namespace, String name, String gpuUuid, List<Integer> groups, long memoryBytes) {
  public BoundClaim {
    groups = List.copyOf(groups);
  }

  public String key() {
    return namespace + "/" + name;
  }
}
