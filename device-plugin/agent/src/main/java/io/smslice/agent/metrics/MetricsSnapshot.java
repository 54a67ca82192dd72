package io.smslice.agent.metrics;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A claim's counters at one moment; also how a worker process reports them to the agent (one line
 * of numbers).
 */
public record MetricsSnapshot(
    long launches,
    long launchNanos,
    long[] buckets,
    long syncNanos,
    long faults,
    long resizes,
    long lastResizeNanos,
    long lastRecoveryNanos) {

  long bucket(int i) {
    return buckets[i];
  }

  public String toLine() {
    return launches
        + " "
        + launchNanos
        + " "
        + syncNanos
        + " "
        + faults
        + " "
        + resizes
        + " "
        + lastResizeNanos
        + " "
        + lastRecoveryNanos
        + " "
        + Arrays.stream(buckets).mapToObj(Long::toString).collect(Collectors.joining(" "));
  }

  public static MetricsSnapshot parse(String line) {
    long[] v = Arrays.stream(line.trim().split(" ")).mapToLong(Long::parseLong).toArray();
    if (v.length != 7 + ClaimMetrics.LAUNCH_BUCKETS.length) {
      throw new IllegalArgumentException("not a metrics line: " + line);
    }
    return new MetricsSnapshot(
        v[0], v[1], Arrays.copyOfRange(v, 7, v.length), v[2], v[3], v[4], v[5], v[6]);
  }
}
