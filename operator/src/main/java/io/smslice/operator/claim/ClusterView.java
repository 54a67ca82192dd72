package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Stream;

/** What the allocator reads from the API (through the operator's caches), and how it nudges. */
public interface ClusterView {
  Stream<SliceClaim> claims();

  Collection<SliceNode> sliceNodes();

  /** Labels of each Kubernetes Node, by node name. */
  Map<String, Map<String, String>> nodeLabels();

  /** Asks for the claim ({@code namespace/name}) to be reconciled again. */
  void trigger(String claimKey);
}
