package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.inventory.NodeFacts;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Stream;

/** What the allocator reads from the API (through the operator's caches), and how it nudges. */
public interface ClusterView {
  Stream<SliceClaim> claims();

  /** Every claim as the API lists it now, not as a cache last saw it. */
  java.util.List<SliceClaim> listClaims();

  Collection<SliceNode> sliceNodes();

  /** Labels and schedulability of each Kubernetes Node, by node name. */
  Map<String, NodeFacts> nodes();

  /** Asks for the claim ({@code namespace/name}) to be reconciled again. */
  void trigger(String claimKey);
}
