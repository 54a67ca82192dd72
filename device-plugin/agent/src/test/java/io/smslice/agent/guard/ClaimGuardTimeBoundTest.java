package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A best-effort executor keeps its work in flight within the guard file's time bound, at the GPU
 * time per operation it learns from its timed events (on the simulated GPU, whose events time the
 * kernels' modelled duration), within the file's depth, and publishes that estimate in its slot.
 */
class ClaimGuardTimeBoundTest {
  /**
   * 1.856 cycles/ns (the simulated clock's calibration): 80 us of spin a wave, waited by spinning.
   */
  private static final long CYCLES = 148_480;

  private static final long KERNEL_NANOS = 80_000;
  private static final int DEPTH = 64;

  @TempDir Path dir;

  private record Run(long maxInFlight, int launchNanos) {}

  private Run launch(Duration bound, int launches) throws Exception {
    GpuGuard.Settings settings =
        new GpuGuard.Settings(Duration.ofSeconds(1), 1.0, Duration.ofSeconds(1), DEPTH, bound);
    try (SimulatedKernel kernel = SimulatedKernel.named("spin");
        GpuGuard gpu = GpuGuard.create(dir.resolve("guard-" + bound.toNanos()), settings);
        ClaimGuard guard = gpu.join("batch/trainer", GuardLayout.ROLE_BEST_EFFORT).orElseThrow()) {
      gpu.enable(true);
      long max = 0;
      for (int i = 0; i < launches; i++) {
        guard.beforeQueue();
        kernel.stream()
            .launch(
                kernel.function(), LaunchGeometry.of(16, 32), List.of(new KernelArg.I64(CYCLES)));
        guard.queued(kernel.stream(), kernel.context());
        GpuGuard.Slot slot = gpu.slots().getFirst();
        max = Math.max(max, slot.launched() - slot.completed());
      }
      return new Run(max, gpu.slots().getFirst().launchNanos());
    }
  }

  @Test
  void aBoundOfNKernelsKeepsAboutNInFlightAndTheSlotShowsTheKernelsTime() throws Exception {
    // Eight kernels and a half, so that an estimate a little over the modelled time fits eight.
    Run run = launch(Duration.ofNanos(8 * KERNEL_NANOS + KERNEL_NANOS / 2), 300);
    assertThat(run.maxInFlight()).isBetween(7L, 8L);
    assertThat((long) run.launchNanos())
        .isBetween(KERNEL_NANOS * 95 / 100, KERNEL_NANOS * 105 / 100);
  }

  @Test
  void aLargeBoundKeepsToTheDepth() throws Exception {
    Run run = launch(Duration.ofMillis(100), 300);
    assertThat(run.maxInFlight()).isEqualTo(DEPTH);
    assertThat((long) run.launchNanos())
        .isBetween(KERNEL_NANOS * 95 / 100, KERNEL_NANOS * 105 / 100);
  }
}
