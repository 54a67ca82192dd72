package io.smslice.node.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import java.util.Map;

/**
 * The objects a claim's events go on, by how the cluster hands claims out: the claim object (a
 * SliceClaim, or a ResourceClaim under DRA) and its pods on this node, each under a name for the
 * log.
 */
public interface ClaimTargets {
  Map<String, ObjectReference> of(String namespace, String name);
}
