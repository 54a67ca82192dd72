package io.smslice.node.dra.prepare;

import io.smslice.agent.BoundClaim;
import io.smslice.api.v1alpha1.claim.Priority;
import java.util.List;

/**
 * A claim this node prepared, as the checkpoint keeps it: enough to serve it again after a restart
 * and to answer a repeated prepare the same way.
 *
 * @param shareId the allocation's share id, or null
 */
public record PreparedClaim(
    String uid,
    String namespace,
    String name,
    String request,
    String pool,
    String device,
    String shareId,
    String gpuUuid,
    List<Integer> groups,
    long sms,
    long memoryBytes,
    Priority priority,
    boolean transparent) {
  public PreparedClaim {
    groups = List.copyOf(groups);
  }

  public String key() {
    return namespace + "/" + name;
  }

  public BoundClaim binding() {
    return new BoundClaim(namespace, name, gpuUuid, groups, memoryBytes, priority);
  }
}
