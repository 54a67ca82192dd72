package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.RunMode;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.protocol.GuardLayout;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With no best-effort waiter on the GPU, the agent itself clears the busy mark a latency-critical
 * owner (a real process, killed) left, once, and never a live owner's.
 */
class AgentSweepsDeadOwnersTest {
  @TempDir Path dir;

  private final List<Process> owners = new ArrayList<>();

  @AfterEach
  void killOwners() {
    owners.forEach(Process::destroyForcibly);
  }

  private Process busyOwner(Path file, int slot) throws Exception {
    Process owner =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                BusyOwner.class.getName(),
                file.toString(),
                Integer.toString(slot))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    owners.add(owner);
    BufferedReader out = new BufferedReader(new InputStreamReader(owner.getInputStream()));
    assertThat(out.readLine()).isEqualTo("busy");
    return owner;
  }

  private static void kill(Process owner) throws InterruptedException {
    owner.destroyForcibly(); // SIGKILL
    assertThat(owner.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  private static void awaitBusyCount(GpuGuard gpu, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET) != count) {
      assertThat(System.nanoTime()).as("waiting for busy count " + count).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void theAgentClearsADeadOwnersBusyMarkOnceAndLeavesALiveOnesAlone() throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    String gpuUuid = backend.devices().getFirst().uuid();
    AgentOptions options =
        new AgentOptions(
            "node-a",
            dir.resolve("run"),
            dir.resolve("state"),
            RunMode.IN_AGENT,
            1 << 20,
            8,
            1 << 20);
    Path shm = Files.createDirectories(dir.resolve("shm"));
    try (Agent agent = Agent.start(options, null, backend, null)) {
      agent.useGuard(
          shm,
          new GpuGuard.Settings(
              Duration.ofMillis(200), 1.0, Duration.ofSeconds(1), 4, Duration.ZERO));
      // A Standard claim makes the GPU's guard file and takes no slot: nobody waits on the marks.
      agent.serve(new BoundClaim("team", "plain", gpuUuid, List.of(0, 1), 1 << 20));
      Path file = Agent.guardFile(shm, gpuUuid);
      try (GpuGuard gpu = GpuGuard.open(file)) {
        Process dead = busyOwner(file, 0);
        busyOwner(file, 1);
        assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isEqualTo(2);
        int releases = gpu.getInt(GuardLayout.RELEASES_OFFSET);

        kill(dead);
        awaitBusyCount(gpu, 1);
        Thread.sleep(2_500); // two sweeps more
        assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).as("cleared once").isOne();
        assertThat(gpu.getInt(GuardLayout.RELEASES_OFFSET)).isEqualTo(releases + 1);
        assertThat(gpu.getLong(GuardLayout.slotOffset(0) + GuardLayout.SLOT_BUSY_SINCE)).isZero();
        assertThat(gpu.getLong(GuardLayout.slotOffset(1) + GuardLayout.SLOT_BUSY_SINCE))
            .as("the live owner's mark stays")
            .isNotZero();

        kill(owners.get(1));
        awaitBusyCount(gpu, 0);
        Thread.sleep(1_500);
        assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
        assertThat(gpu.getInt(GuardLayout.RELEASES_OFFSET)).isEqualTo(releases + 2);
      }
    }
  }
}
