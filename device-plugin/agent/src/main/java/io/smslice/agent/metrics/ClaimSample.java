package io.smslice.agent.metrics;

/** One claim's metrics at one moment, with the labels they are published under. */
public record ClaimSample(
    String namespace,
    String claim,
    String gpuUuid,
    String runMode,
    int sms,
    long memoryUsed,
    long memoryQuota,
    int sessions,
    MetricsSnapshot metrics) {}
