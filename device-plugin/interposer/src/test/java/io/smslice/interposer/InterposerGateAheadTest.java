package io.smslice.interposer;

import static io.smslice.interposer.GuardTenant.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.GuardLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Best-effort gates that close ahead of a periodic latency-critical tenant's next frame (the file's
 * ahead time), against the fake driver's stream waits: a latency-critical process runs a 20 ms
 * kernel every ~150 ms, a best-effort one keeps 5 ms kernels queued, a wait ahead of every second.
 */
class InterposerGateAheadTest {
  private static final long MS = 1_000_000;
  private static final int FRAMES = 12;

  private final Path dir;
  @AutoClose private final GuardTenants tenants;

  InterposerGateAheadTest(@TempDir Path dir) throws IOException {
    this.dir = dir;
    tenants = new GuardTenants(dir, GuardTenant.Driver.STREAM_WAITS);
  }

  /** The two tenants' kernels on their timelines, once both finished. */
  private record Run(List<long[]> frames, List<long[]> bestEffort, long period, int be) {}

  private Run run(GuardFile guard) throws Exception {
    return run(guard, tenants.start(guard, "LatencyCritical", FRAMES, 20_000, 150_000));
  }

  private Run run(GuardFile guard, GuardTenant critical) throws Exception {
    await(() -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
    int lc = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
    GuardTenant bestEffort = tenants.start(guard, "BestEffort", 500, 5_000, 0);
    List<long[]> frames = critical.kernels();
    long period = guard.slotLong(lc, GuardLayout.SLOT_PERIOD);
    return new Run(
        frames, bestEffort.kernels(), period, guard.slotOf(GuardLayout.ROLE_BEST_EFFORT));
  }

  /** Best-effort kernels that started in the 15 ms before a frame or during it, frames 6 on. */
  private static long startedJustBeforeOrDuring(Run run) {
    return startedJustBeforeOrDuring(run, -1);
  }

  private static long startedJustBeforeOrDuring(Run run, int except) {
    return java.util.stream.IntStream.range(6, run.frames.size())
        .filter(i -> i != except)
        .mapToObj(run.frames::get)
        .mapToLong(
            f -> run.bestEffort.stream().filter(k -> k[1] > f[1] - 15 * MS && k[1] < f[2]).count())
        .sum();
  }

  @Test
  void theGateClosesAheadOfAPeriodicCriticalTenantsNextFrame() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2).holdingStreams()) {
      guard.putLong(GuardLayout.AHEAD_NANOS_OFFSET, 40 * MS);

      Run run = run(guard);

      assertThat(run.period).as("the frames' period").isBetween(140 * MS, 200 * MS);
      assertThat(startedJustBeforeOrDuring(run))
          .as("best-effort kernels started within 15 ms of a frame or during it")
          .isZero();
      assertThat(guard.slotInt(run.be, GuardLayout.SLOT_AHEAD))
          .as("closings ahead of a frame")
          .isGreaterThanOrEqualTo(FRAMES - 6);
      // After the last frame it expects two more, and then none: the job runs on unhindered.
      assertThat(guard.slotInt(run.be, GuardLayout.SLOT_AHEAD_MISSED)).isBetween(2, 4);
      long lastFrameEnd = run.frames.getLast()[2];
      List<long[]> after =
          run.bestEffort.stream().filter(k -> k[1] > lastFrameEnd + 400 * MS).toList();
      assertThat(after).hasSizeGreaterThan(20);
      long busy = after.stream().mapToLong(k -> k[2] - k[1]).sum();
      assertThat((double) busy / (after.getLast()[2] - after.getFirst()[1]))
          .as("the share of the time after the frames stopped its kernels ran")
          .isGreaterThan(0.8);
    }
  }

  @Test
  void aFrameStartedLateOnAFixedScheduleCostsTheFramesAfterItNoClosingAhead() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2).holdingStreams()) {
      guard.putLong(GuardLayout.AHEAD_NANOS_OFFSET, 40 * MS);

      // Frame 8 starts 60 ms after its time, more than the ahead time; the rest keep the schedule.
      Run run =
          run(
              guard,
              tenants.startLateOnce(guard, "LatencyCritical", FRAMES, 20_000, 150_000, 8, 60_000));

      assertThat(run.period).as("the frames' period").isBetween(140 * MS, 160 * MS);
      assertThat(startedJustBeforeOrDuring(run, 8))
          .as("best-effort kernels started within 15 ms of a frame other than the late one")
          .isZero();
    }
  }

  @Test
  void withoutAnAheadTimeTheGateClosesOnlyOnceAFrameBegan() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2).holdingStreams()) {
      Run run = run(guard);

      assertThat(run.period).as("no period is learnt").isZero();
      assertThat(startedJustBeforeOrDuring(run))
          .as("best-effort kernels started within 15 ms of a frame or during it")
          .isPositive();
      assertThat(guard.slotInt(run.be, GuardLayout.SLOT_AHEAD)).isZero();
      assertThat(guard.slotInt(run.be, GuardLayout.SLOT_HOLDS)).isPositive();
    }
  }
}
