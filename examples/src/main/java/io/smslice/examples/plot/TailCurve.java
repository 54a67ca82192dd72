package io.smslice.examples.plot;

import java.util.Arrays;

/**
 * The tail of a latency distribution: for each latency x, the fraction of frames that took x or
 * longer (the complementary CDF). On a logarithmic axis its height at x reads directly as "one
 * frame in N took this long": 1e-2 is the p99, 1e-3 the p99.9.
 */
public record TailCurve(double[] latencies, double[] slowerFraction) {

  /** One point per distinct latency, ascending; the slowest frame's point is 1/n (not 0). */
  public static TailCurve of(double[] samples) {
    if (samples.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    double[] sorted = samples.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    double[] x = new double[n];
    double[] y = new double[n];
    int points = 0;
    for (int i = 0; i < n; i++) {
      if (i + 1 < n && sorted[i + 1] == sorted[i]) {
        continue;
      }
      x[points] = sorted[i];
      // frames at or slower than this latency, so the last point stays on a log axis
      int atOrAbove = n - firstIndexOf(sorted, sorted[i]);
      y[points] = (double) atOrAbove / n;
      points++;
    }
    return new TailCurve(Arrays.copyOf(x, points), Arrays.copyOf(y, points));
  }

  private static int firstIndexOf(double[] sorted, double value) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
