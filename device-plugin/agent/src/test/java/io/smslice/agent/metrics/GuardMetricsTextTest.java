package io.smslice.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.guard.GpuGuard;
import io.smslice.protocol.GuardLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guard's closings ahead of frames, as an interposer's processes write them, in /metrics. */
class GuardMetricsTextTest {
  @TempDir Path dir;

  @Test
  void aLatencyCriticalClaimsPeriodAndTheClosingsAheadOfItsFramesAreExported() throws Exception {
    Path file = dir.resolve("guard");
    try (GpuGuard gpu = GpuGuard.create(file, GpuGuard.Settings.DEFAULTS);
        ClaimGuard critical =
            gpu.join("team/det", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow();
        ClaimGuard bestEffort = gpu.join("team/batch", GuardLayout.ROLE_BEST_EFFORT).orElseThrow();
        Arena arena = Arena.ofConfined();
        FileChannel channel =
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      // What the tenants' processes would have written: the first slot taken is the critical one.
      MemorySegment memory =
          channel.map(FileChannel.MapMode.READ_WRITE, 0, GuardLayout.FILE_BYTES, arena);
      long lc = GuardLayout.slotOffset(0);
      long be = GuardLayout.slotOffset(1);
      memory.set(ValueLayout.JAVA_LONG, lc + GuardLayout.SLOT_PERIOD, 10_000_000L);
      memory.set(ValueLayout.JAVA_INT, be + GuardLayout.SLOT_AHEAD, 981);
      memory.set(ValueLayout.JAVA_INT, be + GuardLayout.SLOT_AHEAD_MISSED, 3);

      assertThat(GuardMetricsText.render(Map.of("GPU-1", gpu)))
          .contains(
              "smslice_guard_frame_period_seconds{gpu=\"GPU-1\",claim=\"team/det\","
                  + "priority=\"LatencyCritical\"} 0.01")
          .contains(
              "smslice_guard_ahead_closings_total{gpu=\"GPU-1\",claim=\"team/batch\","
                  + "priority=\"BestEffort\"} 981")
          .contains(
              "smslice_guard_ahead_missed_total{gpu=\"GPU-1\",claim=\"team/batch\","
                  + "priority=\"BestEffort\"} 3");
    }
  }
}
