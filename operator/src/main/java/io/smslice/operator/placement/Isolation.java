package io.smslice.operator.placement;

/** What a claim asks to be isolated by; AUTO lets the engine pick (docs/placement.md). */
public enum Isolation {
  COMPUTE,
  MEMORY,
  SHARED,
  AUTO
}
