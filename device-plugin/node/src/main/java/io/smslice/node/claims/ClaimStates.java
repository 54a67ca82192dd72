package io.smslice.node.claims;

import java.util.List;
import java.util.Map;

/** The claims the agent serves on this node, read when the node publishes or is scraped. */
@FunctionalInterface
public interface ClaimStates {
  List<ClaimState> claims();

  /**
   * Per claim ({@code namespace/name}), the best-effort holds the interference guard's cap has
   * ended so far, over its processes' and executors' slots on every GPU; empty without a guard.
   */
  default Map<String, Long> guardCapCuts() {
    return Map.of();
  }

  /** For a node side without an agent. */
  ClaimStates NONE = List::of;
}
