package io.smslice.api.v1alpha1.node;

/** Whether new work may be placed on a GPU. */
public enum GpuHealth {
  Healthy,
  Unhealthy
}
