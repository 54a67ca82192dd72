package io.smslice.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.SimulatedNvml;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SM clock, power and clock-event reasons per GPU, in Prometheus' base units. */
class GpuActivityMetricsTest {
  private static final String A = "GPU-aaaaaaaa-0000-4000-8000-000000000001";
  private static final String B = "GPU-aaaaaaaa-0000-4000-8000-000000000002";

  private static NvmlGpu gpu(int index, String uuid) {
    return new NvmlGpu(index, uuid, "NVIDIA H200", 141L << 30, index, false, List.of());
  }

  @Test
  void clockPowerAndReasonsInBaseUnits() {
    SimulatedNvml nvml = new SimulatedNvml(List.of(gpu(0, A), gpu(1, B)));
    // Power-capped and thermally slowed: bits 0x4 and 0x20.
    nvml.setActivity(A, new GpuActivity(1410, 699_500, 0x4 | 0x20, 50));
    NodeMetrics metrics = new NodeMetrics();
    GpuActivityMetrics.register(metrics, nvml);

    String text = metrics.scrape();
    assertThat(text)
        .contains("# TYPE smslice_node_gpu_sm_clock_hertz gauge")
        .contains("smslice_node_gpu_sm_clock_hertz{gpu=\"" + A + "\"} 1.41E9")
        .contains("smslice_node_gpu_power_watts{gpu=\"" + A + "\"} 699.5")
        .contains(
            "smslice_node_gpu_clock_event_active{gpu=\"" + A + "\",reason=\"sw_power_cap\"} 1.0")
        .contains(
            "smslice_node_gpu_clock_event_active{gpu=\""
                + A
                + "\",reason=\"sw_thermal_slowdown\"} 1.0")
        .contains("smslice_node_gpu_clock_event_active{gpu=\"" + A + "\",reason=\"gpu_idle\"} 0.0")
        .contains("smslice_node_gpu_memory_busy_ratio{gpu=\"" + A + "\"} 0.5")
        // B reads the simulator's constants: 1980 MHz, 100 W, no reason.
        .contains("smslice_node_gpu_sm_clock_hertz{gpu=\"" + B + "\"} 1.98E9")
        .contains("smslice_node_gpu_power_watts{gpu=\"" + B + "\"} 100.0")
        .contains(
            "smslice_node_gpu_clock_event_active{gpu=\"" + B + "\",reason=\"sw_power_cap\"} 0.0");
  }

  @Test
  void aFigureNvmlCannotReadIsLeftOut() {
    SimulatedNvml nvml = new SimulatedNvml(List.of(gpu(0, A)));
    nvml.setActivity(A, new GpuActivity(1980, -1, -1, -1));
    NodeMetrics metrics = new NodeMetrics();
    GpuActivityMetrics.register(metrics, nvml);

    String text = metrics.scrape();
    assertThat(text)
        .contains("smslice_node_gpu_sm_clock_hertz{gpu=\"" + A + "\"} 1.98E9")
        .doesNotContain("smslice_node_gpu_power_watts{")
        .doesNotContain("smslice_node_gpu_clock_event_active{")
        .doesNotContain("smslice_node_gpu_memory_busy_ratio{");
  }
}
