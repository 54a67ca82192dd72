package io.smslice.api.v1alpha1.claim;

/** Placement priority of a claim. */
public enum Priority {
  LatencyCritical,
  Standard,
  BestEffort
}
