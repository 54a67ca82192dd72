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
 * The interference guard holding best-effort streams on the GPU (holdOn: stream in the file's
 * header): against the fake driver, which has stream waits and runs a front end that lets each pass
 * only while its word is open, a best-effort process queues a wait ahead of every bound's worth of
 * launches and its gate thread closes the word while latency-critical work is in flight. Its
 * launches never wait; its kernels do, as the fake's timeline shows.
 */
class InterposerStreamGateTest {
  private static final long MS = 1_000_000;

  private final Path dir;
  @AutoClose private final GuardTenants tenants;

  InterposerStreamGateTest(@TempDir Path dir) throws IOException {
    this.dir = dir;
    tenants = new GuardTenants(dir, GuardTenant.Driver.STREAM_WAITS);
  }

  @Test
  void bestEffortKernelsWaitOnTheGpuWhileCriticalWorkIsInFlightAndTheLaunchesDoNot()
      throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 4).holdingStreams()) {
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 1_000_000, 1_500_000);
      await(() -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
      int lc = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
      await(() -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) != 0, "critical work in flight");

      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 3, 10, 0);
      List<long[]> launches = bestEffort.launches();
      List<long[]> ran = bestEffort.kernels();

      long criticalEnd = critical.kernels().getFirst()[2];
      for (long[] launch : launches) {
        assertThat(launch[3] - launch[2]).as("a launch call").isLessThan(100 * MS);
      }
      assertThat(ran).hasSize(3);
      assertThat(ran.getFirst()[1])
          .as("the first kernel starts once the critical one ended")
          .isBetween(criticalEnd, criticalEnd + 500 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLD_MODE)).isEqualTo(GuardLayout.HOLD_STREAM);
      assertThat(guard.slotLong(be, GuardLayout.SLOT_STREAM_WAITS)).isEqualTo(1);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).isEqualTo(1);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isZero();
      assertThat(guard.slotInt(be, GuardLayout.SLOT_GATE_CLOSED)).isZero();
      assertThat(guard.slotLong(be, GuardLayout.SLOT_HELD_NANOS)).isGreaterThan(100 * MS);
    }
  }

  @Test
  void theGateClosesOnAQueueAlreadyOnTheGpuAfterAtMostOneBoundOfIt() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2).holdingStreams()) {
      // Forty 20 ms kernels queued at once (800 ms of work), a wait ahead of every second one.
      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 40, 20_000, 0);
      await(() -> guard.slotOf(GuardLayout.ROLE_BEST_EFFORT) >= 0, "the best-effort slot");
      Thread.sleep(100);
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 300_000, 0);

      List<long[]> launches = bestEffort.launches();
      long[] criticalRan = critical.kernels().getFirst();
      List<long[]> ran = bestEffort.kernels();

      assertThat(launches.getLast()[3] - launches.getFirst()[2])
          .as("all forty queued without waiting")
          .isLessThan(300 * MS);
      // The gate closes within a wake-up of the critical launch; then at most the kernel running
      // and the one before the next wait may still start.
      long startedInside =
          ran.stream()
              .filter(k -> k[1] > criticalRan[1] + 60 * MS && k[1] < criticalRan[2] - 10 * MS)
              .count();
      assertThat(startedInside)
          .as("best-effort kernels started while it ran")
          .isLessThanOrEqualTo(2);
      assertThat(ran).hasSize(40);
      assertThat(bestEffort.streamWaits()).isEqualTo(20);
    }
  }

  @Test
  void theGateOpensAtTheCapAndAStuckCriticalSlotIsNotWaitedForAgain() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 1).holdingStreams()) {
      guard.markCriticalBusy(5);
      // The cap counts from the mark's own time, not from when this thread reads the clock next.
      long marked = guard.slotLong(5, GuardLayout.SLOT_BUSY_SINCE);

      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 2, 10, 0);
      List<long[]> ran = bestEffort.kernels();

      assertThat(ran.get(0)[1] - marked).isBetween(300 * MS, 1_300 * MS);
      assertThat(ran.get(1)[1] - ran.get(0)[2]).isLessThan(100 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).isEqualTo(1);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isEqualTo(1);
    }
  }

  @Test
  void aCriticalProcessKilledWithWorkInFlightHoldsTheGateAtMostTheCap() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 400, 1_000, 1_000, 1).holdingStreams()) {
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 60_000_000, 60_000_000);
      await(() -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
      int lc = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
      await(() -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) != 0, "critical work in flight");
      critical.process.destroyForcibly().waitFor();
      long killed = System.nanoTime();

      List<long[]> ran = tenants.start(guard, "BestEffort", 3, 10, 0).kernels();

      assertThat(ran.getLast()[2] - killed).isLessThan(2_000 * MS);
      assertThat(ran.get(2)[1] - ran.get(0)[2]).isLessThan(100 * MS);
      await(() -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) == 0, "the dead mark cleared");
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
    }
  }

  @Test
  void theShareCapBoundsHowLongTheGateIsClosedInEachWindow() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 60_000, 200, 250, 4).holdingStreams()) {
      guard.markCriticalBusy(0);
      Thread renew =
          Thread.ofVirtual()
              .start(
                  () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                      guard.renewCriticalBusy(0);
                      try {
                        Thread.sleep(10);
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  });
      try {
        long start = System.nanoTime();
        GuardTenant bestEffort = tenants.start(guard, "BestEffort", 300, 1_000, 1_000);
        List<long[]> ran = bestEffort.kernels();
        long elapsed = System.nanoTime() - start;

        assertThat(ran).hasSize(300);
        int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
        long held = guard.slotLong(be, GuardLayout.SLOT_HELD_NANOS);
        assertThat(held).isGreaterThan(elapsed / 10).isLessThan(elapsed * 4 / 10);
        assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isPositive();
      } finally {
        renew.interrupt();
      }
    }
  }

  @Test
  void theTimeBoundLearnsFromAStreamThatNeverRunsFarAhead() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 64).holdingStreams()) {
      guard.putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, 8 * MS);

      // 1 ms kernels launched a little faster than they run: never the ring's 1024 events in
      // flight, so no launch has to wait for the oldest to end, which is when it learnt before.
      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 200, 1_000, 700);
      bestEffort.kernels();

      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_LAUNCH_NANOS))
          .as("the estimate, from the launches' events")
          .isBetween(900_000, 1_300_000);
    }
  }

  @Test
  void theTimeBoundsEstimateLeavesOutTheTimeTheGateHeldTheStream() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 64).holdingStreams()) {
      guard.putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, 4 * MS);
      // Latency-critical work 20 ms of every ~25 ms for a second.
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 40, 20_000, 25_000);
      await(() -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");

      // 1 ms kernels, launched a little faster than they run: a wait ahead of every fourth, and
      // the gate closed most of the time, so many waits meet a closed gate.
      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 150, 1_000, 700);
      bestEffort.kernels();

      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).as("holds").isGreaterThan(5);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_LAUNCH_NANOS))
          .as("the estimate: the kernels' 1 ms, not the holds between them")
          .isBetween(900_000, 1_300_000);
      critical.process.destroyForcibly();
    }
  }

  @Test
  void bestEffortProcessesNeverHoldEachOther() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2).holdingStreams()) {
      GuardTenant a = tenants.start(guard, "BestEffort", 50, 2_000, 0);
      GuardTenant b = tenants.start(guard, "BestEffort", 50, 2_000, 0);

      List<long[]> first = a.kernels();
      List<long[]> second = b.kernels();

      // Each process's 100 ms of kernels ran back to back on its own timeline.
      assertThat(first.getLast()[2] - first.getFirst()[1]).isLessThan(300 * MS);
      assertThat(second.getLast()[2] - second.getFirst()[1]).isLessThan(300 * MS);
      for (int slot = 0; slot < GuardLayout.SLOTS; slot++) {
        assertThat(guard.slotInt(slot, GuardLayout.SLOT_HOLDS)).isZero();
      }
    }
  }

  @Test
  void aFileThatDoesNotAllowStreamHoldsKeepsHoldingTheLaunchingThread() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 4)) {
      guard.markCriticalBusy(5);
      // The cap counts from the mark's own time, not from when this thread reads the clock next.
      long marked = guard.slotLong(5, GuardLayout.SLOT_BUSY_SINCE);

      GuardTenant bestEffort = tenants.start(guard, "BestEffort", 1, 10, 0);
      List<long[]> launches = bestEffort.launches();

      assertThat(launches.getFirst()[3] - marked).isBetween(300 * MS, 1_300 * MS);
      assertThat(bestEffort.streamWaits()).isZero();
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLD_MODE)).isEqualTo(GuardLayout.HOLD_THREAD);
    }
  }

  @Test
  void aDriverWithoutStreamWaitsHoldsTheLaunchingThreadInstead() throws Exception {
    try (GuardFile guard =
        new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 4).holdingStreams()) {
      guard.markCriticalBusy(5);
      // The cap counts from the mark's own time, not from when this thread reads the clock next.
      long marked = guard.slotLong(5, GuardLayout.SLOT_BUSY_SINCE);

      List<long[]> launches =
          tenants
              .start(GuardTenant.Driver.NO_STREAM_WAITS, guard, "BestEffort", 1, 10, 0, false, 1)
              .launches();

      assertThat(launches.getFirst()[3] - marked).isBetween(300 * MS, 1_300 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLD_MODE)).isEqualTo(GuardLayout.HOLD_THREAD);
      assertThat(guard.slotLong(be, GuardLayout.SLOT_STREAM_WAITS)).isZero();
    }
  }
}
