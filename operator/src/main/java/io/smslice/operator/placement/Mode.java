package io.smslice.operator.placement;

/** How a GPU serves slices; a GPU has exactly one mode. */
public enum Mode {
  GREEN,
  MIG,
  MPS,
  OFF
}
