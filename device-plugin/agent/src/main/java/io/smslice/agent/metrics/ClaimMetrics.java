package io.smslice.agent.metrics;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one claim, updated by its executor thread and read by the metrics endpoint. */
public final class ClaimMetrics {
  /** Upper bounds (seconds) of the launch latency histogram: agent dequeue to driver return. */
  static final double[] LAUNCH_BUCKETS = {1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 1e-3, 1e-2};

  private final LongAdder launches = new LongAdder();
  private final LongAdder launchNanos = new LongAdder();
  private final AtomicLongArray launchBuckets = new AtomicLongArray(LAUNCH_BUCKETS.length);
  private final LongAdder syncNanos = new LongAdder();
  private final LongAdder faults = new LongAdder();
  private final LongAdder resizes = new LongAdder();
  private volatile long lastResizeNanos;
  private volatile long lastRecoveryNanos;

  public void launched(long nanos) {
    launches.increment();
    launchNanos.add(nanos);
    double seconds = nanos / 1e9;
    for (int i = 0; i < LAUNCH_BUCKETS.length; i++) {
      if (seconds <= LAUNCH_BUCKETS[i]) {
        launchBuckets.incrementAndGet(i);
        break;
      }
    }
  }

  /** Time the claim's executor waited in stream or event synchronization for GPU work. */
  public void synchronizedFor(long nanos) {
    syncNanos.add(nanos);
  }

  public void fault() {
    faults.increment();
  }

  public void resized(long nanos) {
    resizes.increment();
    lastResizeNanos = nanos;
  }

  public void recovered(long nanos) {
    lastRecoveryNanos = nanos;
  }

  public long launches() {
    return launches.sum();
  }

  public long lastResizeNanos() {
    return lastResizeNanos;
  }

  public long lastRecoveryNanos() {
    return lastRecoveryNanos;
  }

  public MetricsSnapshot snapshot() {
    long[] buckets = new long[LAUNCH_BUCKETS.length];
    for (int i = 0; i < buckets.length; i++) {
      buckets[i] = launchBuckets.get(i);
    }
    return new MetricsSnapshot(
        launches.sum(),
        launchNanos.sum(),
        buckets,
        syncNanos.sum(),
        faults.sum(),
        resizes.sum(),
        lastResizeNanos,
        lastRecoveryNanos);
  }
}
