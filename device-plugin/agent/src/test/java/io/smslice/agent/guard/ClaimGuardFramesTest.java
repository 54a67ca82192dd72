package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.LaunchGeometry;
import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A latency-critical executor of the agent publishes its frames in its slot as the interposer's
 * tenants do, so the interposer's best-effort gates close ahead of agent-served claims too.
 */
class ClaimGuardFramesTest {
  private static final long MS = 1_000_000;

  @TempDir Path dir;

  /** Six frames of one kernel, 20 ms apart; the slot's period afterwards. */
  private long periodAfterFrames(Duration ahead) throws Exception {
    GpuGuard.Settings settings =
        new GpuGuard.Settings(
            Duration.ofSeconds(1),
            1.0,
            Duration.ofSeconds(1),
            4,
            Duration.ZERO,
            HoldOn.STREAM,
            ahead);
    try (SimulatedKernel kernel = SimulatedKernel.named("empty");
        GpuGuard gpu = GpuGuard.create(dir.resolve("guard-" + ahead.toNanos()), settings);
        ClaimGuard guard = gpu.join("det/model", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow()) {
      gpu.enable(true);
      long next = System.nanoTime();
      for (int frame = 0; frame < 6; frame++) {
        while (System.nanoTime() < next) {
          Thread.sleep(1);
        }
        next += 20 * MS;
        guard.beforeQueue();
        kernel.stream().launch(kernel.function(), LaunchGeometry.of(1, 32), List.of());
        guard.queued(kernel.stream(), kernel.context());
        guard.awaitOldest();
      }
      long at = GuardLayout.slotOffset(0);
      assertThat(gpu.getLong(at + GuardLayout.SLOT_FRAME_START) != 0).isEqualTo(!ahead.isZero());
      return gpu.getLong(at + GuardLayout.SLOT_PERIOD);
    }
  }

  @Test
  void framesTwentyMillisecondsApartArePublishedAsTheSlotsPeriod() throws Exception {
    // An ahead time of 10 ms: a frame the test thread starts late by less still counts as periodic.
    assertThat(periodAfterFrames(Duration.ofMillis(10))).isBetween(12 * MS, 21 * MS);
  }

  @Test
  void withoutAnAheadTimeNoPeriodIsPublished() throws Exception {
    assertThat(periodAfterFrames(Duration.ZERO)).isZero();
  }
}
