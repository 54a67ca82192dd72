package io.smslice.node.publish;

import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.node.claims.ClaimState;
import java.util.Comparator;
import java.util.List;

/** The SliceNode's view of the claims the node serves. */
public final class ServedClaims {
  private ServedClaims() {}

  public static List<ServedClaim> toApi(List<ClaimState> states) {
    return states.stream()
        .sorted(Comparator.comparing(ClaimState::key))
        .map(
            s -> {
              ServedClaim c = new ServedClaim();
              c.setNamespace(s.namespace());
              c.setName(s.name());
              c.setGpuUuid(s.gpuUuid());
              c.setServing(s.serving());
              c.setMessage(s.serving() ? null : s.message());
              c.setSmGroups(s.groups().isEmpty() ? null : s.groups());
              c.setTransparentProcesses(s.processes().size());
              return c;
            })
        .toList();
  }
}
