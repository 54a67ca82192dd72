package io.smslice.examples.workload;

import java.util.Arrays;

/**
 * Launch latencies of one workload: totals since start, and percentiles over the most recent window
 * (so the table shows the present, not the warm-up), plus deadline misses.
 */
public final class LatencyStats {
  private static final int WINDOW = 4096;

  private long deadlineNanos;
  private final long[] recent = new long[WINDOW];
  private int next;
  private int filled;
  private long count;
  private long misses;
  private volatile int smsSeen;

  /** A launch slower than this is a deadline miss; 0 (the default) means no deadline. */
  public synchronized void deadline(long nanos) {
    this.deadlineNanos = nanos;
  }

  public synchronized void record(long nanos) {
    recent[next] = nanos;
    next = (next + 1) % WINDOW;
    filled = Math.min(filled + 1, WINDOW);
    count++;
    if (deadlineNanos > 0 && nanos > deadlineNanos) {
      misses++;
    }
  }

  /** Counts an attempt that produced no latency to record (no answer in time) as a miss. */
  public synchronized void recordMiss() {
    count++;
    misses++;
  }

  /** Distinct SMs the workload's last {@code record_smid} launch ran on. */
  public void smsSeen(int sms) {
    smsSeen = sms;
  }

  public synchronized Snapshot snapshot() {
    long[] sorted = Arrays.copyOf(recent, filled);
    Arrays.sort(sorted);
    return new Snapshot(
        count, percentile(sorted, 0.50), percentile(sorted, 0.99), misses, deadlineNanos, smsSeen);
  }

  private static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  /** Values at one moment; latencies in nanoseconds, 0 before the first launch. */
  public record Snapshot(
      long launches, long p50, long p99, long deadlineMisses, long deadline, int smsSeen) {}
}
