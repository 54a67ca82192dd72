package io.smslice.agent.metrics;

/**
 * One claim's metrics at one moment, with the labels they are published under.
 *
 * @param failed the claim stopped serving after an error inside the agent
 */
public record ClaimSample(
    String namespace,
    String claim,
    String gpuUuid,
    String runMode,
    int sms,
    long memoryUsed,
    long memoryQuota,
    int sessions,
    MetricsSnapshot metrics,
    boolean failed) {
  public ClaimSample(
      String namespace,
      String claim,
      String gpuUuid,
      String runMode,
      int sms,
      long memoryUsed,
      long memoryQuota,
      int sessions,
      MetricsSnapshot metrics) {
    this(
        namespace, claim, gpuUuid, runMode, sms, memoryUsed, memoryQuota, sessions, metrics, false);
  }
}
