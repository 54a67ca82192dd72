package io.smslice.node.transparent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.config.GuardGating;
import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.SimulatedNvml;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class GuardPressureTest {
  private static final String GPU = "GPU-a";

  /** 50% memory busy counts as pressure; the gate stays open 10 s after the last such sample. */
  private static final GuardGating GATING = new GuardGating(true, 50, Duration.ofSeconds(10));

  private final SimulatedNvml nvml =
      new SimulatedNvml(
          List.of(new NvmlGpu(0, GPU, "NVIDIA H200", 141L << 30, 0, false, List.of())));
  private long now;
  private final GuardPressure pressure = new GuardPressure(nvml, GATING, () -> now);

  @Test
  void bandwidthPressureOpensTheGateUntilTheHoldHasPassedWithoutIt() {
    assertThat(pressure.sample(List.of(GPU))).isFalse();
    assertThat(pressure.test(GPU)).as("idle memory, full clock").isFalse();

    nvml.setActivity(GPU, new GpuActivity(1980, 400_000, 0, 49));
    pressure.sample(List.of(GPU));
    assertThat(pressure.test(GPU)).as("below the threshold").isFalse();

    nvml.setActivity(GPU, new GpuActivity(1980, 400_000, 0, 50));
    assertThat(pressure.sample(List.of(GPU))).as("a change").isTrue();
    assertThat(pressure.test(GPU)).isTrue();

    nvml.setActivity(GPU, SimulatedNvml.NOMINAL);
    now += Duration.ofSeconds(10).toNanos();
    assertThat(pressure.sample(List.of(GPU))).isFalse();
    assertThat(pressure.test(GPU)).as("within the hold").isTrue();
    now += 1;
    assertThat(pressure.sample(List.of(GPU))).isTrue();
    assertThat(pressure.test(GPU)).as("the hold is over").isFalse();
  }

  @Test
  void thePowerOrThermalLimitIsPressureAndIdleOrUnreadReasonsAreNot() {
    nvml.setActivity(GPU, new GpuActivity(1500, 699_000, 0x4, 10));
    pressure.sample(List.of(GPU));
    assertThat(pressure.test(GPU)).as("sw power cap").isTrue();

    now += Duration.ofSeconds(11).toNanos();
    nvml.setActivity(GPU, new GpuActivity(345, 80_000, 0x1, 0));
    pressure.sample(List.of(GPU));
    assertThat(pressure.test(GPU)).as("idle").isFalse();

    nvml.setActivity(GPU, new GpuActivity(-1, -1, -1, -1));
    pressure.sample(List.of(GPU));
    assertThat(pressure.test(GPU)).as("NVML read nothing").isFalse();
  }
}
