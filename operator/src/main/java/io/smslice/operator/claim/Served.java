package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.Collection;
import java.util.Optional;

/** What a node reports about serving one claim (SliceNode status.claims). */
final class Served {
  private Served() {}

  static Optional<ServedClaim> of(Collection<SliceNode> sliceNodes, String node, String claimKey) {
    if (node == null) {
      return Optional.empty();
    }
    return sliceNodes.stream()
        .filter(sn -> node.equals(sn.getMetadata().getName()))
        .filter(sn -> sn.getStatus() != null && sn.getStatus().getClaims() != null)
        .flatMap(sn -> sn.getStatus().getClaims().stream())
        .filter(c -> claimKey.equals(c.getNamespace() + "/" + c.getName()))
        .findFirst();
  }
}
