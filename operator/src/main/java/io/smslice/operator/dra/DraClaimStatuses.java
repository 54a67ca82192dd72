package io.smslice.operator.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.operator.claim.ClaimStatuses;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A DRA-served SliceClaim's status, read from its ResourceClaim: Pending until the kube-scheduler
 * allocated it (when the first pod that uses it is scheduled) and the node recorded which SM groups
 * it prepared; then Bound with the node, GPU and groups, Ready as the node's device condition says.
 * Conditions keep their lastTransitionTime while their status stays the same (ClaimStatuses.set).
 */
public final class DraClaimStatuses {
  public static final String NAME_TAKEN = "ResourceClaimNameTaken";
  public static final String WAITING_FOR_ALLOCATION = "WaitingForAllocation";
  public static final String ALLOCATED = "Allocated";
  public static final String WAITING_FOR_NODE = "WaitingForNode";
  public static final String NODE_CANNOT_SERVE = "NodeCannotServe";
  public static final String SERVING = "Serving";
  public static final String RESIZE_NEEDS_NEW_CLAIM = "ResizeNeedsNewClaim";

  private DraClaimStatuses() {}

  /** What the operator found under the SliceClaim's name. */
  public sealed interface Found {}

  /** A ResourceClaim of that name that this SliceClaim does not control. */
  public record Foreign() implements Found {}

  /**
   * Its own ResourceClaim, as JSON.
   *
   * @param stale the SliceClaim's spec changed since the claim was made and the claim is in use, so
   *     it cannot be replaced now
   */
  public record Own(JsonNode claim, boolean stale) implements Found {}

  public static SliceClaimStatus next(SliceClaim claim, Found found, Instant now) {
    SliceClaimStatus old = claim.getStatus();
    Long generation = claim.getMetadata().getGeneration();
    List<Condition> conditions =
        old == null || old.getConditions() == null
            ? new ArrayList<>()
            : new ArrayList<>(old.getConditions().stream().map(ClaimStatuses::copy).toList());
    SliceClaimStatus s = new SliceClaimStatus();
    s.setObservedGeneration(generation);
    String ns = claim.getMetadata().getNamespace();
    String name = claim.getMetadata().getName();
    if (found instanceof Foreign) {
      String message =
          "ResourceClaim "
              + ns
              + "/"
              + name
              + " exists and is not controlled by this SliceClaim: the operator serves a SliceClaim"
              + " through the ResourceClaim of its name, so delete or rename that ResourceClaim, or"
              + " give the SliceClaim another name";
      return unplaced(s, conditions, NAME_TAKEN, message, generation, now);
    }
    Own own = (Own) found;
    Optional<ClaimAllocation> allocation = ClaimAllocation.of(own.claim());
    if (own.stale()) {
      ClaimStatuses.set(
          conditions,
          ClaimStatuses.RESIZED,
          "False",
          RESIZE_NEEDS_NEW_CLAIM,
          "a ResourceClaim's spec cannot change and ResourceClaim "
              + ns
              + "/"
              + name
              + " is in use: the new size applies once no pod uses it (the operator then makes it"
              + " again)",
          generation,
          now);
    } else {
      conditions.removeIf(c -> c.getType().equals(ClaimStatuses.RESIZED));
    }
    if (allocation.isEmpty()) {
      return unplaced(
          s,
          conditions,
          WAITING_FOR_ALLOCATION,
          "ResourceClaim "
              + ns
              + "/"
              + name
              + " is not allocated yet: the kube-scheduler allocates it when it schedules the first"
              + " pod that uses it",
          generation,
          now);
    }
    ClaimAllocation a = allocation.get();
    String where = a.device() + " on node " + a.node();
    String allocated =
        "the kube-scheduler allocated "
            + (a.sms() == null ? "" : a.sms() + " SMs of ")
            + where
            + " to ResourceClaim "
            + ns
            + "/"
            + name;
    ClaimStatuses.set(
        conditions, ClaimStatuses.PLACED, "True", ALLOCATED, allocated, generation, now);
    if (a.gpuUuid() == null) {
      s.setPhase(Phase.Pending);
      String message = "node " + a.node() + " has not prepared the claim yet (" + allocated + ")";
      s.setMessage(message);
      ClaimStatuses.set(
          conditions, ClaimStatuses.READY, "False", WAITING_FOR_NODE, message, generation, now);
      s.setConditions(conditions);
      return s;
    }
    Binding b = new Binding();
    b.setNode(a.node());
    b.setGpuUuid(a.gpuUuid());
    b.setMode(GpuMode.Green);
    b.setSmGroups(new ArrayList<>(a.smGroups()));
    b.setSms(a.sms());
    s.setBinding(b);
    s.setPhase(Phase.Bound);
    s.setMessage(allocated);
    if ("False".equals(a.ready())) {
      ClaimStatuses.set(
          conditions,
          ClaimStatuses.READY,
          "False",
          NODE_CANNOT_SERVE,
          "node " + a.node() + " cannot serve the claim: " + a.readyMessage(),
          generation,
          now);
    } else if ("True".equals(a.ready())) {
      ClaimStatuses.set(
          conditions,
          ClaimStatuses.READY,
          "True",
          SERVING,
          "node " + a.node() + " serves the claim on SM groups " + a.smGroups(),
          generation,
          now);
    } else {
      ClaimStatuses.set(
          conditions,
          ClaimStatuses.READY,
          "False",
          WAITING_FOR_NODE,
          "node " + a.node() + " has not reported the claim Ready yet",
          generation,
          now);
    }
    s.setConditions(conditions);
    return s;
  }

  private static SliceClaimStatus unplaced(
      SliceClaimStatus s,
      List<Condition> conditions,
      String reason,
      String message,
      Long generation,
      Instant now) {
    s.setPhase(Phase.Pending);
    s.setMessage(message);
    ClaimStatuses.set(conditions, ClaimStatuses.PLACED, "False", reason, message, generation, now);
    ClaimStatuses.set(conditions, ClaimStatuses.READY, "False", reason, message, generation, now);
    s.setConditions(conditions);
    return s;
  }
}
