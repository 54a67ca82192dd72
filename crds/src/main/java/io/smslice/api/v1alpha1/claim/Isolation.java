package io.smslice.api.v1alpha1.claim;

/** What a claim is isolated from its neighbours by. */
public enum Isolation {
  /** A green context: hard SM slice, shared memory system. */
  Compute,
  /** A MIG instance: SMs, memory and faults isolated in hardware. */
  Memory,
  /** An MPS share: SM percentage and memory limit, for unmodified CUDA programs. */
  Shared,
  /** The operator chooses; see docs/placement.md. */
  Auto
}
