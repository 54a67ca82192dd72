package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.operator.placement.Placement;

/**
 * What the allocator decided for one claim: the phase and placement to record, and why.
 *
 * @param reason CamelCase reason for the Placed condition and events
 * @param resize when set, the claim was re-sliced in place and this is what it had before
 * @param resizeRejected a resize that could not be done now (the claim keeps its slice)
 */
public record Outcome(
    Phase phase,
    Placement placement,
    String reason,
    String message,
    Placement resize,
    Resize resizeRejected) {

  /** A resize that was asked for and could not be made. */
  public record Resize(String reason, String message) {}

  static Outcome bound(Placement p, String reason, String message) {
    return new Outcome(Phase.Bound, p, reason, message, null, null);
  }

  static Outcome unplaced(Phase phase, String reason, String message) {
    return new Outcome(phase, null, reason, message, null, null);
  }
}
