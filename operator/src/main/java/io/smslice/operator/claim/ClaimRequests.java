package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.operator.inventory.InventoryReader;
import io.smslice.operator.placement.Isolation;
import io.smslice.operator.placement.Priority;
import io.smslice.operator.placement.Request;
import java.util.Map;

/**
 * A claim's spec as an engine request. Missing fields take the schema's defaults here too, since a
 * claim may reach the operator without them (isolation Auto, priority Standard).
 */
public final class ClaimRequests {
  private ClaimRequests() {}

  public static String key(SliceClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }

  public static Request from(SliceClaim claim) {
    SliceClaimSpec spec = claim.getSpec() == null ? new SliceClaimSpec() : claim.getSpec();
    var selector = spec.getSelector();
    return new Request(
        key(claim),
        spec.getSms() == null ? 0 : spec.getSms(),
        InventoryReader.bytes(spec.getMemory()),
        isolation(spec.getIsolation()),
        priority(spec.getPriority()),
        selector == null ? null : selector.getProduct(),
        selector == null || selector.getNodeLabels() == null ? Map.of() : selector.getNodeLabels(),
        Boolean.TRUE.equals(spec.getMemoryBound()));
  }

  public static Priority priority(io.smslice.api.v1alpha1.claim.Priority p) {
    if (p == null) {
      return Priority.STANDARD;
    }
    return switch (p) {
      case LatencyCritical -> Priority.LATENCY_CRITICAL;
      case Standard -> Priority.STANDARD;
      case BestEffort -> Priority.BEST_EFFORT;
    };
  }

  private static Isolation isolation(io.smslice.api.v1alpha1.claim.Isolation i) {
    if (i == null) {
      return Isolation.AUTO;
    }
    return switch (i) {
      case Compute -> Isolation.COMPUTE;
      case Memory -> Isolation.MEMORY;
      case Shared -> Isolation.SHARED;
      case Auto -> Isolation.AUTO;
    };
  }
}
