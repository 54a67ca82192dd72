package io.smslice.agent;

import io.smslice.api.v1alpha1.claim.Priority;
import java.util.List;
import java.util.Objects;

/**
 * A claim bound to a green-mode GPU of this node, as the agent needs it; {@code priority} is the
 * claim's spec.priority, which places it in the GPU's interference guard.
 */
public record BoundClaim(
    String namespace,
    String name,
    String gpuUuid,
    List<Integer> groups,
    long memoryBytes,
    Priority priority) {
  public BoundClaim {
    groups = List.copyOf(groups);
    Objects.requireNonNull(priority, "priority");
  }

  /** A Standard claim: outside the guard. */
  public BoundClaim(
      String namespace, String name, String gpuUuid, List<Integer> groups, long memoryBytes) {
    this(namespace, name, gpuUuid, groups, memoryBytes, Priority.Standard);
  }

  public String key() {
    return namespace + "/" + name;
  }
}
