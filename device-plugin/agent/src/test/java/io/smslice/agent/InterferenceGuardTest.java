package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.guard.GpuGuard;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.client.Arg;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interference guard on the agent-served path, against the simulated GPU (whose kernels take
 * their modelled time): a latency-critical claim's executor publishes its work in flight in the
 * GPU's guard file; a best-effort claim's executor holds its work meanwhile; the agent turns the
 * guard on only while both kinds share the GPU.
 */
class InterferenceGuardTest {
  /** 1.856 cycles/ns (the simulated clock's calibration): ~1 ms of spin per wave. */
  private static final long ONE_MILLISECOND_OF_CYCLES = 1_856_000;

  @TempDir Path directory;

  private static void serve(AgentFixture f, String name, List<Integer> groups, Priority p)
      throws Exception {
    f.agent.serve(new BoundClaim("team", name, f.gpu, groups, 1 << 20, p));
  }

  private static Optional<GpuGuard.Slot> slot(GpuGuard guard, String claim) {
    return guard.slots().stream().filter(s -> s.claim().equals("team/" + claim)).findFirst();
  }

  private static void await(GpuGuard guard, String claim, Predicate<GpuGuard.Slot> condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!slot(guard, claim).filter(condition).isPresent()) {
      assertThat(System.nanoTime()).as("waiting on the slot of " + claim).isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void theGuardIsOnOnlyWhileLatencyCriticalAndBestEffortClaimsShareTheGpu() throws Exception {
    try (AgentFixture f = new AgentFixture(directory)) {
      Path dir = directory.resolve("shm");
      java.nio.file.Files.createDirectories(dir);
      f.agent.useGuard(dir, GpuGuard.Settings.DEFAULTS);
      serve(f, "det", List.of(0, 1), Priority.LatencyCritical);
      try (GpuGuard guard = GpuGuard.open(Agent.guardFile(dir, f.gpu))) {
        assertThat(guard.enabled()).isFalse();
        serve(f, "batch", List.of(2, 3), Priority.BestEffort);
        assertThat(guard.enabled()).isTrue();
        assertThat(slot(guard, "batch"))
            .map(GpuGuard.Slot::role)
            .contains(GuardLayout.ROLE_BEST_EFFORT);
        f.agent.release("team", "batch");
        assertThat(guard.enabled()).isFalse();
        serve(f, "other", List.of(4, 5), Priority.Standard);
        assertThat(guard.enabled()).isFalse();
        serve(f, "other", List.of(4, 5), Priority.BestEffort); // its priority edited
        assertThat(guard.enabled()).isTrue();
      }
    }
  }

  @Test
  void theNodesGateKeepsTheGuardOffUntilItOpensAndARefreshAppliesIt() throws Exception {
    try (AgentFixture f = new AgentFixture(directory)) {
      Path dir = directory.resolve("shm");
      java.nio.file.Files.createDirectories(dir);
      f.agent.useGuard(dir, GpuGuard.Settings.DEFAULTS);
      boolean[] pressure = {false};
      f.agent.gateGuard(gpu -> pressure[0]);
      serve(f, "det", List.of(0, 1), Priority.LatencyCritical);
      serve(f, "batch", List.of(2, 3), Priority.BestEffort);
      try (GpuGuard guard = GpuGuard.open(Agent.guardFile(dir, f.gpu))) {
        assertThat(guard.enabled()).as("shared, but no pressure").isFalse();
        pressure[0] = true;
        assertThat(guard.enabled()).as("the gate's answer applies on a refresh").isFalse();
        f.agent.refreshGuards();
        assertThat(guard.enabled()).isTrue();
        pressure[0] = false;
        f.agent.refreshGuards();
        assertThat(guard.enabled()).isFalse();
      }
    }
  }

  @Test
  void aBestEffortClaimsWorkWaitsWhileTheCriticalClaimsWorkIsInFlight() throws Exception {
    try (AgentFixture f = new AgentFixture(directory)) {
      Path dir = directory.resolve("shm");
      java.nio.file.Files.createDirectories(dir);
      f.agent.useGuard(
          dir,
          new GpuGuard.Settings(
              java.time.Duration.ofSeconds(5),
              1.0,
              java.time.Duration.ofSeconds(1),
              4,
              java.time.Duration.ZERO));
      serve(f, "det", List.of(0, 1), Priority.LatencyCritical);
      serve(f, "batch", List.of(2, 3), Priority.BestEffort);
      try (GpuGuard guard = GpuGuard.open(Agent.guardFile(dir, f.gpu));
          SmsliceClient critical = f.connect("det");
          SmsliceClient batch = f.connect("batch")) {
        Kernel spin = critical.kernel(critical.loadModule(AgentFixture.KERNELS), "spin");
        Stream cs = critical.createStream();
        Kernel bspin = batch.kernel(batch.loadModule(AgentFixture.KERNELS), "spin");
        Stream bs = batch.createStream();

        // 400 ms of critical work, queued without waiting for it.
        critical.launch(spin, cs, 16, 32, Arg.i64(400 * ONE_MILLISECOND_OF_CYCLES));
        await(guard, "det", GpuGuard.Slot::busy);
        long queued = System.nanoTime();
        batch.launch(bspin, bs, 16, 32, Arg.i64(ONE_MILLISECOND_OF_CYCLES));
        batch.synchronize(bs);
        long batchDone = System.nanoTime() - queued;

        critical.synchronize(cs);
        await(guard, "det", s -> !s.busy() && s.completed() == 1);
        GpuGuard.Slot held = slot(guard, "batch").orElseThrow();
        assertThat(held.holds()).isEqualTo(1);
        assertThat(held.capCuts()).isZero();
        assertThat(held.heldNanos()).isGreaterThan(100_000_000L);
        assertThat(batchDone).isGreaterThan(100_000_000L);
        assertThat(f.agent.renderMetrics())
            .contains("smslice_guard_enabled{gpu=\"" + f.gpu + "\"} 1")
            .contains(
                "smslice_guard_holds_total{gpu=\""
                    + f.gpu
                    + "\",claim=\"team/batch\",priority=\"BestEffort\"} 1")
            .contains(
                "smslice_guard_launches_total{gpu=\""
                    + f.gpu
                    + "\",claim=\"team/det\",priority=\"LatencyCritical\"} 1");
      }
    }
  }
}
