package io.smslice.node.health;

/** Whether a GPU may take work, and why not. */
public record GpuCondition(boolean healthy, String reason) {
  public static final GpuCondition HEALTHY = new GpuCondition(true, null);

  public static GpuCondition unhealthy(String reason) {
    return new GpuCondition(false, reason);
  }
}
