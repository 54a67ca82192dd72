package io.smslice.operator.placement;

import java.util.List;

/** The engine's answer for one request. */
public sealed interface Decision {

  /** Placed; {@code displaced} are BestEffort claims that must give up their slice first. */
  record Placed(Placement placement, List<String> displaced) implements Decision {
    public Placed {
      displaced = List.copyOf(displaced);
    }
  }

  /**
   * Not placed. {@code permanent}: no GPU in the inventory could hold it even when empty, so
   * waiting for others to leave does not help (the claim is Failed until the inventory changes).
   */
  record Unplaced(String reason, String message, boolean permanent) implements Decision {}
}
