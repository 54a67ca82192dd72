package io.smslice.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MetricsSnapshotTest {
  @Test
  void aWorkerLineRoundTrips() {
    ClaimMetrics metrics = new ClaimMetrics();
    metrics.launched(3_000);
    metrics.launched(2_000_000);
    metrics.resized(1_500_000);
    metrics.fault();
    MetricsSnapshot parsed = MetricsSnapshot.parse(metrics.snapshot().toLine());
    assertThat(parsed.launches()).isEqualTo(2);
    assertThat(parsed.launchNanos()).isEqualTo(2_003_000);
    assertThat(parsed.buckets()).containsExactly(0, 0, 1, 0, 0, 0, 0, 0, 1);
    assertThat(parsed.lastResizeNanos()).isEqualTo(1_500_000);
    assertThat(parsed.faults()).isEqualTo(1);
    assertThatThrownBy(() -> MetricsSnapshot.parse("1 2 3"))
        .hasMessageContaining("not a metrics line");
  }
}
