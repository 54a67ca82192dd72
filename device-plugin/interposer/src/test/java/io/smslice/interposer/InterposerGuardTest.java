package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.GuardLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interference guard against the fake driver, whose kernels take the time they are launched
 * with: latency-critical processes publish their work in flight in the GPU's guard file (read here
 * through GuardLayout), best-effort processes hold their launches meanwhile, within the caps. Here
 * the driver has no stream memory operations, so best-effort processes hold on the launching
 * thread; {@link InterposerStreamGateTest} holds their streams on the GPU.
 */
class InterposerGuardTest {
  private static final long MS = 1_000_000;

  private final Path dir;
  @AutoClose private final GuardTenants tenants;

  InterposerGuardTest(@TempDir Path dir) throws IOException {
    this.dir = dir;
    tenants = new GuardTenants(dir, GuardTenant.Driver.NO_STREAM_WAITS);
  }

  @Test
  void aBestEffortLaunchWaitsWhileCriticalWorkIsInFlightAndGoesOnWhenItEnds() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 4)) {
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 1_000_000, 1_500_000);
      GuardTenant.await(
          () -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
      int lc = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
      GuardTenant.await(
          () -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) != 0, "critical work in flight");
      assertThat(guard.slotClaim(lc)).isEqualTo(ProgramRun.CLAIM);
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isEqualTo(1);

      List<long[]> held = tenants.start(guard, "BestEffort", 1, 10, 0).launches();

      GuardTenant.await(
          () -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) == 0, "the critical release");
      long[] criticalLaunch = critical.launches().getFirst();
      long criticalEnd = criticalLaunch[2] + 1_000 * MS; // the fake's kernel ran 1 s from launch
      assertThat(held.getFirst()[3])
          .isBetween(criticalEnd, criticalLaunch[3] + 1_000 * MS + 500 * MS);
      assertThat(guard.slotLong(lc, GuardLayout.SLOT_LAUNCHED)).isEqualTo(1);
      assertThat(guard.slotLong(lc, GuardLayout.SLOT_COMPLETED)).isEqualTo(1);
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
      assertThat(guard.getInt(GuardLayout.RELEASES_OFFSET)).isEqualTo(1);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).isEqualTo(1);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isZero();
      assertThat(guard.slotLong(be, GuardLayout.SLOT_HELD_NANOS)).isGreaterThan(100 * MS);
    }
  }

  @Test
  void aProcessWhoseEnvironmentLacksTheGuardVariablesTakesThemFromTheTenantFile() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 4)) {
      guard.markCriticalBusy(5);

      List<long[]> launches =
          tenants
              .start(GuardTenant.Driver.NO_STREAM_WAITS, guard, "BestEffort", 1, 10, 0, true, 1)
              .launches();

      assertThat(launches).hasSize(1);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(be).as("a best-effort slot, from the file's priority").isNotNegative();
      assertThat(guard.slotClaim(be)).isEqualTo(ProgramRun.CLAIM);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).isEqualTo(1);
    }
  }

  @Test
  void theHoldEndsAtTheCapAndAStuckCriticalSlotIsNotWaitedForAgain() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 4)) {
      guard.markCriticalBusy(5);
      // The cap counts from the mark's own time, not from when this thread reads the clock next.
      long marked = guard.slotLong(5, GuardLayout.SLOT_BUSY_SINCE);

      List<long[]> launches = tenants.start(guard, "BestEffort", 2, 10, 0).launches();

      // Held until the critical work had been in flight for the cap, from when it was marked.
      assertThat(launches.get(0)[3] - marked).isBetween(300 * MS, 1_300 * MS);
      assertThat(launches.get(1)[3] - launches.get(1)[2]).isLessThan(100 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isEqualTo(1);
    }
  }

  @Test
  void aCriticalProcessKilledWithWorkInFlightHoldsOthersAtMostTheCap() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 400, 1_000, 1_000, 4)) {
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 60_000_000, 60_000_000);
      GuardTenant.await(
          () -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
      int lc = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
      GuardTenant.await(
          () -> guard.slotLong(lc, GuardLayout.SLOT_BUSY_SINCE) != 0, "critical work in flight");
      critical.process.destroyForcibly().waitFor();
      long killed = System.nanoTime();

      List<long[]> launches = tenants.start(guard, "BestEffort", 3, 10, 0).launches();

      assertThat(launches.getLast()[3] - killed).isLessThan(2_000 * MS);
      assertThat(launches.get(1)[3] - launches.get(1)[2]).isLessThan(100 * MS);
    }
  }

  @Test
  void aKilledCriticalProcessHasItsBusyMarkClearedOnceByTheNextWaitersAndCutsNoLaterHold()
      throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 300, 1_000, 1_000, 4)) {
      GuardTenant killed = tenants.start(guard, "LatencyCritical", 1, 60_000_000, 60_000_000);
      GuardTenant.await(
          () -> guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL) >= 0, "the critical slot");
      int dead = guard.slotOf(GuardLayout.ROLE_LATENCY_CRITICAL);
      GuardTenant.await(
          () -> guard.slotLong(dead, GuardLayout.SLOT_BUSY_SINCE) != 0, "work in flight");
      killed.process.destroyForcibly().waitFor(); // SIGKILL: no exit handler runs
      long at = System.nanoTime();

      // Two best-effort processes notice at once; only one may take the dead mark off the count.
      GuardTenant a = tenants.start(guard, "BestEffort", 3, 10, 0);
      GuardTenant b = tenants.start(guard, "BestEffort", 3, 10, 0);
      a.launches();
      b.launches();
      GuardTenant.await(
          () -> guard.slotLong(dead, GuardLayout.SLOT_BUSY_SINCE) == 0, "the dead mark cleared");
      assertThat(System.nanoTime() - at).isLessThan(3_000 * MS);
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();

      // A live critical process's release, not the cap, now ends a hold (200 ms of work in flight,
      // within the 300 ms hold limit).
      GuardTenant critical = tenants.start(guard, "LatencyCritical", 1, 200_000, 400_000);
      GuardTenant.await(
          () -> guard.getInt(GuardLayout.BUSY_COUNT_OFFSET) == 1, "live work in flight");
      GuardTenant held = tenants.start(guard, "BestEffort", 1, 10, 0);
      held.launches();
      critical.launches();
      int cuts = 0;
      int holds = 0;
      for (int slot = 0; slot < GuardLayout.SLOTS; slot++) {
        cuts += guard.slotInt(slot, GuardLayout.SLOT_CAP_CUTS);
        holds += guard.slotInt(slot, GuardLayout.SLOT_HOLDS);
      }
      assertThat(holds).as("the last process's hold").isPositive();
      assertThat(cuts).isZero();
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
    }
  }

  @Test
  void theShareCapBoundsHowMuchOfEachWindowABestEffortProcessIsHeld() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 60_000, 200, 250, 4)) {
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
        List<long[]> launches = tenants.start(guard, "BestEffort", 300, 1_000, 1_000).launches();
        long elapsed = System.nanoTime() - start;

        assertThat(launches).hasSize(300);
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
  void theShareCapCountsTheTimeAnyThreadOfTheProcessIsHeldNotTheSumOfItsThreadsHolds()
      throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 60_000, 100, 600, 4)) {
      // A critical tenant busy 10 ms of every 25 (40%): both best-effort threads wait through
      // each busy stretch, ~40 ms of each 100 ms window, within its 60 ms share; their holds
      // summed would reach 80 ms, and the cap would cut every window's fourth stretch short.
      Thread critical =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      while (!Thread.currentThread().isInterrupted()) {
                        guard.markCriticalBusy(0);
                        Thread.sleep(10);
                        guard.releaseCritical(0);
                        Thread.sleep(15);
                      }
                    } catch (InterruptedException | IOException e) {
                      // the test is over
                    }
                  });
      try {
        long start = System.nanoTime();
        List<long[]> launches =
            tenants
                .start(
                    GuardTenant.Driver.NO_STREAM_WAITS,
                    guard,
                    "BestEffort",
                    800,
                    10,
                    1_000,
                    false,
                    2)
                .launches();
        long elapsed = System.nanoTime() - start;

        assertThat(launches).hasSize(1_600);
        long heldWall = unionOfCalls(launches);
        assertThat((double) heldWall / elapsed)
            .as("held through the busy stretches")
            .isGreaterThan(0.25);
        int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
        assertThat(guard.slotInt(be, GuardLayout.SLOT_CAP_CUTS)).isZero();
        assertThat(guard.slotLong(be, GuardLayout.SLOT_HELD_NANOS))
            .as("the slot's time held: the process's wall time, not the threads' sum")
            .isBetween(heldWall * 7 / 10, heldWall * 12 / 10);
      } finally {
        critical.interrupt();
        critical.join();
      }
    }
  }

  /** The time at least one launch call was running, over all threads' [began, returned]. */
  private static long unionOfCalls(List<long[]> launches) {
    List<long[]> calls =
        launches.stream().sorted(java.util.Comparator.comparingLong(l -> l[2])).toList();
    long total = 0;
    long from = Long.MIN_VALUE;
    long to = Long.MIN_VALUE;
    for (long[] l : calls) {
      if (l[2] > to) {
        total += to - from;
        from = l[2];
        to = l[3];
      } else {
        to = Math.max(to, l[3]);
      }
    }
    return total + (to - from);
  }

  @Test
  void bestEffortProcessesNeverWaitForEachOther() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2)) {
      GuardTenant a = tenants.start(guard, "BestEffort", 50, 2_000, 0);
      GuardTenant b = tenants.start(guard, "BestEffort", 50, 2_000, 0);

      List<long[]> first = a.launches();
      List<long[]> second = b.launches();

      assertThat(first).hasSize(50);
      assertThat(second).hasSize(50);
      for (int slot = 0; slot < GuardLayout.SLOTS; slot++) {
        assertThat(guard.slotInt(slot, GuardLayout.SLOT_HOLDS)).isZero();
      }
      assertThat(guard.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
    }
  }

  @Test
  void aBestEffortProcessKeepsAtMostTheDepthOfItsLaunchesInFlight() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 2)) {
      List<long[]> launches = tenants.start(guard, "BestEffort", 10, 50_000, 0).launches();

      // Launch i may start only once launch i - 2 ended: 50 ms kernels, one after another.
      long first = launches.getFirst()[2];
      for (int i = 2; i < launches.size(); i++) {
        assertThat(launches.get(i)[3] - first).isGreaterThanOrEqualTo((i - 1) * 50 * MS);
      }
    }
  }

  @Test
  void aBestEffortProcessRecordsOneEventPerQuarterOfItsBoundAndStillKeepsToIt() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 32)) {
      GuardTenant tenant = tenants.start(guard, "BestEffort", 96, 2_000, 0);
      List<long[]> launches = tenant.launches();

      // Depth 32: an event after every eighth launch, so twelve for 96 launches, not 96; and
      // launch i still returns only once launch i - 32 ended (2 ms kernels, one after another).
      assertThat(tenant.events()).as("the guard's, and the program's last").isEqualTo(12 + 1);
      long first = launches.getFirst()[2];
      for (int i = 40; i < launches.size(); i++) {
        assertThat(launches.get(i)[3] - first).isGreaterThanOrEqualTo((i - 40) * 2 * MS);
      }
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotLong(be, GuardLayout.SLOT_LAUNCHED)).isEqualTo(96);
    }
  }

  @Test
  void aTimeBoundKeepsAsManyLaunchesInFlightAsTheirMeasuredTimeFits() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 64)) {
      guard.putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, 30 * MS);

      List<long[]> launches = tenants.start(guard, "BestEffort", 20, 10_000, 0).launches();

      // 10 ms kernels in a 30 ms bound: three in flight, so launch i returns once launch i - 3
      // ended, though the depth alone (64) would let all twenty go at once.
      long first = launches.getFirst()[2];
      for (int i = 4; i < launches.size(); i++) {
        assertThat(launches.get(i)[3] - first).isGreaterThanOrEqualTo((i - 3) * 10 * MS);
      }
      assertThat(launches.getLast()[3] - first).isLessThan(190 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_LAUNCH_NANOS))
          .as("the estimate, from the launches' events")
          .isBetween((int) (9 * MS), (int) (11 * MS));
    }
  }

  @Test
  void aTimeBoundLetsShortLaunchesRunFarAheadWithinTheDepth() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 64)) {
      guard.putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, 1_000 * MS);

      List<long[]> launches = tenants.start(guard, "BestEffort", 40, 2_000, 0).launches();

      // 2 ms kernels fit 500 times in the bound: the depth (64) is what limits, so after the
      // first estimate no launch waits, and all forty are queued long before the GPU ends them.
      long first = launches.getFirst()[2];
      assertThat(launches.getLast()[3] - first).isLessThan(40 * MS);
    }
  }

  @Test
  void nothingIsHeldWhileTheGuardIsOffOrForAProcessOfNoGuardedPriority() throws Exception {
    try (GuardFile guard = new GuardFile(dir.resolve("guard"), 5_000, 1_000, 1_000, 1)) {
      guard.markCriticalBusy(0);
      guard.enable(false);
      List<long[]> off = tenants.start(guard, "BestEffort", 5, 100_000, 0).launches();
      guard.enable(true);
      List<long[]> standard = tenants.start(guard, "Standard", 5, 100_000, 0).launches();

      assertThat(off.getLast()[3] - off.getFirst()[2]).isLessThan(300 * MS);
      assertThat(standard.getLast()[3] - standard.getFirst()[2]).isLessThan(300 * MS);
      int be = guard.slotOf(GuardLayout.ROLE_BEST_EFFORT);
      assertThat(guard.slotInt(be, GuardLayout.SLOT_HOLDS)).isZero();
      assertThat(guard.slotLong(be, GuardLayout.SLOT_LAUNCHED)).isZero();
      int slots = 0;
      for (int slot = 0; slot < GuardLayout.SLOTS; slot++) {
        slots += guard.slotLong(slot, GuardLayout.SLOT_OWNER) != 0 ? 1 : 0;
      }
      assertThat(slots)
          .as("the marked slot and the best-effort one; none for Standard")
          .isEqualTo(2);
    }
  }
}
