package io.smslice.examples.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyStatsTest {
  @Test
  void percentilesAreOverTheRecordedLatencies() {
    LatencyStats stats = new LatencyStats();
    for (long i = 1; i <= 100; i++) {
      stats.record(i * 1_000);
    }
    LatencyStats.Snapshot s = stats.snapshot();
    assertThat(s.launches()).isEqualTo(100);
    assertThat(s.p50()).isEqualTo(50_000);
    assertThat(s.p99()).isEqualTo(99_000);
  }

  @Test
  void launchesOverTheDeadlineAndAnswersThatNeverCameAreMisses() {
    LatencyStats stats = new LatencyStats();
    stats.deadline(10_000);
    stats.record(9_000);
    stats.record(10_000);
    stats.record(10_001);
    stats.recordMiss();
    LatencyStats.Snapshot s = stats.snapshot();
    assertThat(s.launches()).isEqualTo(4);
    assertThat(s.deadlineMisses()).isEqualTo(2);
  }

  @Test
  void percentilesFollowTheRecentWindowAndTotalsDoNot() {
    LatencyStats stats = new LatencyStats();
    for (int i = 0; i < 10_000; i++) {
      stats.record(1_000_000);
    }
    for (int i = 0; i < 5_000; i++) {
      stats.record(1_000);
    }
    LatencyStats.Snapshot s = stats.snapshot();
    assertThat(s.launches()).isEqualTo(15_000);
    assertThat(s.p99()).isEqualTo(1_000);
  }

  @Test
  void nothingRecordedReadsAsZero() {
    assertThat(new LatencyStats().snapshot())
        .isEqualTo(new LatencyStats.Snapshot(0, 0, 0, 0, 0, 0, LatencyStats.Modelled.NONE));
  }

  @Test
  void onASimulatedGpuTheModelledLatencyIsJudgedApartFromWhatTheHostAdded() {
    LatencyStats stats = new LatencyStats();
    stats.deadline(2_000_000);
    stats.record(3_000_000, 100_000); // the host made it late, the GPU did not
    stats.record(2_500_000, 2_400_000); // late on the GPU itself
    stats.record(500_000, 100_000);

    LatencyStats.Snapshot s = stats.snapshot();

    assertThat(s.deadlineMisses()).isEqualTo(2);
    assertThat(s.modelled().launches()).isEqualTo(3);
    assertThat(s.modelled().deadlineMisses()).isEqualTo(1);
    assertThat(s.modelled().p50()).isEqualTo(100_000);
    assertThat(s.modelled().hostAddedP50()).isEqualTo(400_000);
    assertThat(s.modelled().hostAddedP99()).isEqualTo(2_900_000);
  }

  @Test
  void aPhasesModelledTailCountsOnlyItsOwnFrames() {
    LatencyStats stats = new LatencyStats();
    for (int i = 0; i < 500; i++) {
      stats.record(2_000_000, 1_500_000);
    }
    long atSwitch = stats.snapshot().modelled().launches();
    for (int i = 1; i <= 100; i++) {
      stats.record(2_000_000, i * 10_000L);
    }
    assertThat(stats.modelledP99Since(atSwitch)).isEqualTo(990_000);
    assertThat(stats.modelledP99Since(0)).isEqualTo(1_500_000);
    assertThat(stats.modelledP99Since(stats.snapshot().modelled().launches())).isZero();
  }
}
