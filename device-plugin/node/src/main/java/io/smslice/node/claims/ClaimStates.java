package io.smslice.node.claims;

import java.util.List;

/** The claims the agent serves on this node, read when the node publishes or is scraped. */
@FunctionalInterface
public interface ClaimStates {
  List<ClaimState> claims();

  /** For a node side without an agent. */
  ClaimStates NONE = List::of;
}
