package io.smslice.agent.verify;

import java.util.Arrays;

/** Latency samples in nanoseconds. */
final class Samples {
  private final long[] values;
  private int count;

  Samples(int capacity) {
    values = new long[capacity];
  }

  void add(long nanos) {
    values[count++] = nanos;
  }

  double percentileMicros(double p) {
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    int index = (int) Math.min(count - 1, Math.ceil(p / 100.0 * count) - 1);
    return sorted[Math.max(0, index)] / 1000.0;
  }
}
