package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FramePeriodTest {
  private static final long MS = 1_000_000;
  private static final long AHEAD = MS / 2;

  /** Frames of 1 ms beginning at the given times. */
  private static FramePeriod frames(FramePeriod f, long... starts) {
    for (long t : starts) {
      f.busy(t, AHEAD);
      f.idle(t + MS);
    }
    return f;
  }

  /** Five frames 10 ms apart from 100 ms (four intervals): periodic, phase 140 ms. */
  private static FramePeriod learnt() {
    return frames(new FramePeriod(), 100 * MS, 110 * MS, 120 * MS, 130 * MS, 140 * MS);
  }

  @Test
  void fourIntervalsThatAgreeWithinTheAheadTimeMakeATenantPeriodicWithTheShortest() {
    FramePeriod f = frames(new FramePeriod(), 100 * MS, 110 * MS, 120 * MS + MS / 5, 130 * MS);
    assertThat(f.period()).as("three intervals are not enough").isZero();
    frames(f, 140 * MS - MS / 10);
    assertThat(f.period()).isEqualTo(10 * MS - MS / 5);
    assertThat(f.phase()).isEqualTo(140 * MS - MS / 10);
  }

  @Test
  void intervalsThatDisagreeByMoreThanTheAheadTimeAreNotPeriodic() {
    FramePeriod f = frames(new FramePeriod(), 100 * MS, 110 * MS, 120 * MS, 131 * MS, 141 * MS);
    assertThat(f.period()).isZero();
    frames(f, 151 * MS, 161 * MS, 171 * MS);
    assertThat(f.period()).as("the latest four agree again").isEqualTo(10 * MS);
  }

  @Test
  void framesOnScheduleMoveThePhaseAndAFrameSkippedIsStillOnSchedule() {
    FramePeriod f = frames(learnt(), 150 * MS + MS / 10);
    assertThat(f.phase()).isEqualTo(150 * MS + MS / 10);
    frames(f, 170 * MS);
    assertThat(f.period()).isBetween(10 * MS - MS / 10, 10 * MS + MS / 10);
    assertThat(f.phase()).isEqualTo(170 * MS);
  }

  @Test
  void aLateFrameOnAFixedScheduleKeepsThePhaseSoTheNextIsExpectedOnTime() {
    FramePeriod f = frames(learnt(), 152 * MS);
    assertThat(f.period()).isEqualTo(10 * MS);
    assertThat(f.phase()).as("the late frame leaves the phase").isEqualTo(140 * MS);
    frames(f, 160 * MS);
    assertThat(f.phase()).isEqualTo(160 * MS);
    assertThat(f.period()).isEqualTo(10 * MS);
  }

  @Test
  void aScheduleThatMovesWithALateFrameIsFollowed() {
    FramePeriod f = frames(learnt(), 152 * MS, 162 * MS);
    assertThat(f.period()).isEqualTo(10 * MS);
    assertThat(f.phase()).isEqualTo(162 * MS);
    frames(f, 172 * MS);
    assertThat(f.phase()).isEqualTo(172 * MS);
  }

  @Test
  void twoFramesOffAnyScheduleEndThePeriod() {
    FramePeriod f = frames(learnt(), 152 * MS, 157 * MS);
    assertThat(f.period()).isZero();
  }

  @Test
  void workAfterAnIdleGapShorterThanTheAheadTimeContinuesTheFrame() {
    FramePeriod f = new FramePeriod();
    assertThat(f.busy(100 * MS, AHEAD)).isTrue();
    f.idle(101 * MS);
    assertThat(f.busy(101 * MS + AHEAD - 1, AHEAD)).isFalse();
    f.idle(102 * MS);
    assertThat(f.busy(102 * MS + AHEAD, AHEAD)).isTrue();
  }

  @Test
  void withoutAnAheadTimeNoFrameIsLearnt() {
    FramePeriod f = new FramePeriod();
    assertThat(f.busy(100 * MS, 0)).isFalse();
    assertThat(f.phase()).isZero();
    assertThat(f.period()).isZero();
  }
}
