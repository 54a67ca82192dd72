package io.smslice.operator.claim;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.ServedClaim;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a claim's status from the allocator's outcome and the node's report: the one place that
 * sets phase, binding, conditions and observedGeneration. A condition keeps its lastTransitionTime
 * while its status stays the same. {@code Ready} sums up the others: True only when the claim is
 * Bound and its node reports serving it, so {@code kubectl wait --for=condition=Ready} can be
 * trusted.
 */
public final class ClaimStatuses {
  public static final String PLACED = "Placed";
  public static final String RESIZED = "Resized";
  public static final String READY = "Ready";

  private ClaimStatuses() {}

  public static SliceClaimStatus next(
      SliceClaim claim, Outcome o, Optional<ServedClaim> served, Instant now) {
    SliceClaimStatus old = claim.getStatus();
    Long generation = claim.getMetadata().getGeneration();
    SliceClaimStatus s = new SliceClaimStatus();
    s.setPhase(o.phase());
    s.setBinding(o.placement() == null ? null : Bindings.toBinding(o.placement()));
    s.setMessage(o.message());
    s.setObservedGeneration(generation);
    List<Condition> conditions =
        old == null || old.getConditions() == null
            ? new ArrayList<>()
            : new ArrayList<>(old.getConditions().stream().map(ClaimStatuses::copy).toList());
    boolean placed = o.placement() != null;
    set(conditions, PLACED, placed ? "True" : "False", o.reason(), o.message(), generation, now);
    if (o.resize() != null) {
      set(
          conditions,
          RESIZED,
          "True",
          "Resized",
          "re-sliced in place from " + o.resize().sms() + " to " + o.placement().sms() + " SMs",
          generation,
          now);
    } else if (o.resizeRejected() != null) {
      set(
          conditions,
          RESIZED,
          "False",
          o.resizeRejected().reason(),
          o.resizeRejected().message(),
          generation,
          now);
    } else if (placed) {
      conditions.stream()
          .filter(c -> c.getType().equals(RESIZED))
          .forEach(c -> c.setObservedGeneration(generation));
    } else {
      conditions.removeIf(c -> c.getType().equals(RESIZED));
    }
    ready(conditions, o, served, generation, now);
    s.setConditions(conditions);
    return s;
  }

  private static void ready(
      List<Condition> conditions,
      Outcome o,
      Optional<ServedClaim> served,
      Long generation,
      Instant now) {
    if (o.placement() == null || o.phase() != Phase.Bound) {
      set(conditions, READY, "False", o.reason(), o.message(), generation, now);
      return;
    }
    String node = o.placement().node();
    if (served.isEmpty()) {
      set(
          conditions,
          READY,
          "False",
          "WaitingForNode",
          "node " + node + " has not reported serving the claim yet",
          generation,
          now);
    } else if (!served.get().isServing()) {
      String why = served.get().getMessage();
      set(
          conditions,
          READY,
          "False",
          "NodeCannotServe",
          "node " + node + " cannot serve the claim" + (why == null ? "" : ": " + why),
          generation,
          now);
    } else {
      set(
          conditions,
          READY,
          "True",
          "Serving",
          "node " + node + " serves the claim",
          generation,
          now);
    }
  }

  /** The status shown while a resize is being written: the old slice, phase Resizing. */
  public static SliceClaimStatus resizing(
      SliceClaim claim, Outcome o, Optional<ServedClaim> served, Instant now) {
    SliceClaimStatus s = next(claim, o, served, now);
    s.setPhase(Phase.Resizing);
    s.setBinding(Bindings.toBinding(o.resize()));
    s.setMessage(
        "re-slicing from " + o.resize().sms() + " to " + o.placement().sms() + " SMs in place");
    return s;
  }

  /** The status of a claim whose slice has been freed on delete. */
  public static SliceClaimStatus released(SliceClaim claim, Instant now) {
    Outcome o =
        Outcome.unplaced(Phase.Released, "Released", "the claim is being deleted; slice freed");
    return next(claim, o, Optional.empty(), now);
  }

  public static boolean same(SliceClaimStatus a, SliceClaimStatus b) {
    return Objects.equals(Serialization.asJson(a), Serialization.asJson(b));
  }

  public static void set(
      List<Condition> conditions,
      String type,
      String status,
      String reason,
      String message,
      Long generation,
      Instant now) {
    Condition existing =
        conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
    if (existing == null) {
      conditions.add(new Condition(type, status, reason, message, now.toString(), generation));
      return;
    }
    if (!status.equals(existing.getStatus())) {
      existing.setLastTransitionTime(now.toString());
    }
    existing.setStatus(status);
    existing.setReason(reason);
    existing.setMessage(message);
    existing.setObservedGeneration(generation);
  }

  public static Condition copy(Condition c) {
    return new Condition(
        c.getType(),
        c.getStatus(),
        c.getReason(),
        c.getMessage(),
        c.getLastTransitionTime(),
        c.getObservedGeneration());
  }
}
