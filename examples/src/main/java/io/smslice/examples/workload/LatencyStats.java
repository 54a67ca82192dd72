package io.smslice.examples.workload;

import java.util.Arrays;

/**
 * Launch latencies of one workload: totals since start, and percentiles over the most recent window
 * (so the table shows the present, not the warm-up), plus deadline misses. On a simulated GPU a
 * launch also records its modelled GPU-side latency, judged against the same deadline, and the rest
 * of its wall-clock latency is what the host (its CPU, the protocol) added.
 */
public final class LatencyStats {
  private static final int WINDOW = 4096;

  private long deadlineNanos;
  private final Window wall = new Window();
  private final Window modelled = new Window();
  private final Window hostAdded = new Window();
  private long count;
  private long misses;
  private long modelledCount;
  private long modelledMisses;
  private volatile int smsSeen;

  /** A launch slower than this is a deadline miss; 0 (the default) means no deadline. */
  public synchronized void deadline(long nanos) {
    this.deadlineNanos = nanos;
  }

  public synchronized void record(long nanos) {
    wall.add(nanos);
    count++;
    if (deadlineNanos > 0 && nanos > deadlineNanos) {
      misses++;
    }
  }

  /**
   * A launch on a simulated GPU: its wall-clock latency and, within it, the modelled GPU-side
   * latency (waits for SMs plus kernel durations).
   */
  public synchronized void record(long wallNanos, long modelledGpuNanos) {
    record(wallNanos);
    modelled.add(modelledGpuNanos);
    hostAdded.add(Math.max(0, wallNanos - modelledGpuNanos));
    modelledCount++;
    if (deadlineNanos > 0 && modelledGpuNanos > deadlineNanos) {
      modelledMisses++;
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
    long[] sorted = wall.sorted();
    long[] gpu = modelled.sorted();
    long[] host = hostAdded.sorted();
    return new Snapshot(
        count,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        misses,
        deadlineNanos,
        smsSeen,
        new Modelled(
            modelledCount,
            modelledMisses,
            percentile(gpu, 0.50),
            percentile(gpu, 0.99),
            percentile(host, 0.50),
            percentile(host, 0.99)));
  }

  /** The wall-clock p99 of the launches after the first {@code launches} (as below). */
  public synchronized long p99Since(long launches) {
    return percentile(wall.sortedLast(count - launches), 0.99);
  }

  /**
   * The modelled p99 of the frames after the first {@code modelledLaunches} (of the most recent
   * window of them at most): one phase's tail, not the mix of two.
   */
  public synchronized long modelledP99Since(long modelledLaunches) {
    return percentile(modelled.sortedLast(modelledCount - modelledLaunches), 0.99);
  }

  private static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  }

  /** The most recent {@link #WINDOW} values. */
  private static final class Window {
    private final long[] values = new long[WINDOW];
    private int next;
    private int filled;

    void add(long value) {
      values[next] = value;
      next = (next + 1) % WINDOW;
      filled = Math.min(filled + 1, WINDOW);
    }

    long[] sorted() {
      return sortedLast(filled);
    }

    /** The last {@code n} values added (of those still held), sorted. */
    long[] sortedLast(long n) {
      int count = (int) Math.max(0, Math.min(n, filled));
      long[] copy = new long[count];
      for (int i = 0; i < count; i++) {
        copy[i] = values[Math.floorMod(next - 1 - i, WINDOW)];
      }
      Arrays.sort(copy);
      return copy;
    }
  }

  /** Values at one moment; latencies in nanoseconds, 0 before the first launch. */
  public record Snapshot(
      long launches,
      long p50,
      long p99,
      long deadlineMisses,
      long deadline,
      int smsSeen,
      Modelled modelled) {}

  /**
   * On a simulated GPU: the launches that recorded a modelled GPU-side latency, how many of those
   * exceeded the deadline in modelled time, its percentiles, and the percentiles of what the host
   * added on top (wall-clock minus modelled); all 0 on a real GPU.
   */
  public record Modelled(
      long launches,
      long deadlineMisses,
      long p50,
      long p99,
      long hostAddedP50,
      long hostAddedP99) {
    public static final Modelled NONE = new Modelled(0, 0, 0, 0, 0, 0);
  }
}
