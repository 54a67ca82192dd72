package io.smslice.operator.placement;

/** Placement priority; only LATENCY_CRITICAL may displace, and only BEST_EFFORT is displaced. */
public enum Priority {
  LATENCY_CRITICAL,
  STANDARD,
  BEST_EFFORT
}
