package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FramePeriodTest {
  private static final long MS = 1_000_000;
  private static final long AHEAD = MS / 2;

  /** Frames of 1 ms every given interval, from t0; returns the time after the last one's end. */
  private static long frames(FramePeriod f, long t0, long... intervals) {
    long t = t0;
    f.busy(t, AHEAD);
    f.idle(t + MS);
    for (long interval : intervals) {
      t += interval;
      f.busy(t, AHEAD);
      f.idle(t + MS);
    }
    return t;
  }

  @Test
  void fourIntervalsThatAgreeWithinTheAheadTimeMakeATenantPeriodicWithTheShortest() {
    FramePeriod f = new FramePeriod();
    long last = frames(f, 100 * MS, 10 * MS, 10 * MS + 200_000, 10 * MS - 100_000);
    assertThat(f.period(AHEAD)).as("three intervals are not enough").isZero();
    last = frames(f, last + 10 * MS, 10 * MS);
    assertThat(f.period(AHEAD)).isEqualTo(10 * MS - 100_000);
    assertThat(f.frameStart()).isEqualTo(last);
  }

  @Test
  void intervalsThatDisagreeByMoreThanTheAheadTimeAreNotPeriodic() {
    FramePeriod f = new FramePeriod();
    frames(f, 100 * MS, 10 * MS, 10 * MS, 11 * MS, 10 * MS);
    assertThat(f.period(AHEAD)).isZero();
    frames(f, 200 * MS, 10 * MS, 10 * MS, 10 * MS, 10 * MS);
    assertThat(f.period(AHEAD)).as("once the latest four agree again").isEqualTo(10 * MS);
  }

  @Test
  void workAfterAnIdleGapShorterThanTheAheadTimeContinuesTheFrame() {
    FramePeriod f = new FramePeriod();
    assertThat(f.busy(100 * MS, AHEAD)).isTrue();
    f.idle(101 * MS);
    assertThat(f.busy(101 * MS + AHEAD - 1, AHEAD)).isFalse();
    assertThat(f.frameStart()).isEqualTo(100 * MS);
    f.idle(102 * MS);
    assertThat(f.busy(102 * MS + AHEAD, AHEAD)).isTrue();
  }

  @Test
  void withoutAnAheadTimeNoFrameIsLearnt() {
    FramePeriod f = new FramePeriod();
    frames(f, 0, 0);
    assertThat(f.busy(100 * MS, 0)).isFalse();
    assertThat(f.frameStart()).isZero();
  }
}
