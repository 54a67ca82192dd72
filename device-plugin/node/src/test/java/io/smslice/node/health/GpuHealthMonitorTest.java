package io.smslice.node.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.nvml.XidEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuHealthMonitorTest {
  private static final String GPU = "GPU-1";

  @Test
  void criticalXidsMarkTheGpuUntilTheQuietPeriodEndsAndApplicationXidsDoNot() {
    Instant[] now = {Instant.parse("2026-11-30T03:00:00Z")};
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now[0];
          }

          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }
        };
    SimulatedNvml nvml = new SimulatedNvml(List.of());
    List<Map<String, GpuCondition>> heard = new ArrayList<>();
    try (GpuHealthMonitor monitor =
        new GpuHealthMonitor(nvml, Duration.ofHours(1), Duration.ofMinutes(5), clock)) {
      monitor.addListener(heard::add);
      monitor.start(List.of(GPU));

      monitor.onXid(new XidEvent(GPU, 13));
      assertThat(monitor.condition(GPU).healthy()).isTrue();
      assertThat(heard).isEmpty();

      monitor.onXid(new XidEvent(GPU, 79));
      assertThat(monitor.condition(GPU).healthy()).isFalse();
      assertThat(monitor.condition(GPU).reason()).contains("Xid 79");
      assertThat(heard).hasSize(1);

      now[0] = now[0].plus(Duration.ofMinutes(4));
      monitor.evaluateAll();
      assertThat(monitor.condition(GPU).healthy()).isFalse();
      now[0] = now[0].plus(Duration.ofMinutes(2));
      monitor.evaluateAll();
      assertThat(monitor.condition(GPU).healthy()).isTrue();
      assertThat(heard).hasSize(2);

      nvml.setProblem(GPU, "GPU is lost");
      monitor.evaluateAll();
      assertThat(monitor.condition(GPU)).isEqualTo(GpuCondition.unhealthy("GPU is lost"));
    }
  }
}
