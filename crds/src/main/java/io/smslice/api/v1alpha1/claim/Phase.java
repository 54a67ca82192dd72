package io.smslice.api.v1alpha1.claim;

/** Lifecycle of a claim. */
public enum Phase {
  /** Not placed yet; status.message says why. */
  Pending,
  /** Placed; status.binding says where. */
  Bound,
  /** A bound claim whose sms or memory changed is being re-sliced in place. */
  Resizing,
  /** Cannot be served; status.message says why. */
  Failed,
  /** Being deleted; its slice has been freed. */
  Released
}
