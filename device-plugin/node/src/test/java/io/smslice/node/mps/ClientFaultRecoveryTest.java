package io.smslice.node.mps;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.MpsServers;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.nvml.XidEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client's fault on a GPU shared through MPS, driven through the simulated NVML: the affected
 * claims are told, the agent's workers on the GPU are stopped before the wait and started after it,
 * the GPU serves again once the clients that saw the fault are gone, and the MPS daemon is
 * restarted only when they do not go.
 */
class ClientFaultRecoveryTest {
  private static final String GPU = "GPU-aaaaaaaa-0000-4000-8000-000000000001";
  private static final String OTHER = "GPU-aaaaaaaa-0000-4000-8000-000000000002";
  private static final int SERVER = 700;
  private static final int WORKER = 803;

  @TempDir Path tmp;
  private final SimulatedNvml nvml = new SimulatedNvml(List.of());
  private final NodeMetrics metrics = new NodeMetrics();
  private final List<String> notices = new CopyOnWriteArrayList<>();
  private final List<String> restarts = new CopyOnWriteArrayList<>();

  /** The workers' stops and starts and the MPS restarts, in order, with the clients left. */
  private final List<String> steps = new CopyOnWriteArrayList<>();

  private ClientFaultRecovery recovery;

  @BeforeEach
  void start() throws IOException {
    comm(SERVER, "nvidia-cuda-mps");
    comm(801, "python3");
    comm(802, "java");
    comm(WORKER, "java");
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return tmp.resolve(gpuUuid);
          }

          @Override
          public void restart(String gpuUuid) {
            restarts.add(gpuUuid);
            steps.add("mps-restart " + clientPids(gpuUuid));
            // A restarted daemon ends the faulted server and its stale clients' contexts.
            nvml.setProcesses(gpuUuid, List.of());
          }
        };
    recovery =
        new ClientFaultRecovery(
            Set.of(GPU)::contains,
            nvml,
            tmp.resolve("proc"),
            mps,
            (gpu, xid, at) -> notices.add(gpu + " Xid " + xid),
            new ClientFaultRecovery.Workers() {
              @Override
              public void stop(String gpuUuid) {
                steps.add("stop " + clientPids(gpuUuid));
                // A stopped worker's context ends with it.
                nvml.setProcesses(
                    gpuUuid,
                    nvml.computeProcesses(gpuUuid).stream()
                        .filter(p -> p.pid() != WORKER)
                        .toList());
              }

              @Override
              public void start(String gpuUuid) {
                steps.add("start " + clientPids(gpuUuid));
              }
            },
            metrics,
            Duration.ofMillis(600),
            Duration.ofMillis(20),
            Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    recovery.close();
  }

  private List<Integer> clientPids(String gpu) {
    return nvml.computeProcesses(gpu).stream()
        .map(GpuProcess::pid)
        .filter(pid -> pid != SERVER)
        .sorted()
        .toList();
  }

  private void comm(int pid, String name) throws IOException {
    Path dir = tmp.resolve("proc").resolve(Integer.toString(pid));
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("comm"), name + "\n");
  }

  @Test
  void theGpuServesAgainWhenTheClientsThatSawTheFaultHaveExited() throws Exception {
    nvml.setProcesses(
        GPU,
        List.of(
            new GpuProcess(SERVER, 66L << 20),
            new GpuProcess(801, 2L << 30),
            new GpuProcess(802, 1L << 30)));
    recovery.onXid(new XidEvent(GPU, 43));
    recovery.onXid(new XidEvent(GPU, 43)); // the same fault seen by another client: one recovery
    await(() -> notices.size() == 1);
    assertThat(notices).containsExactly(GPU + " Xid 43");
    Thread.sleep(100);
    assertThat(recovery.recovering(GPU)).isTrue();

    // The clients exit; a new one (the agent's restarted worker) and the server stay.
    nvml.setProcesses(GPU, List.of(new GpuProcess(SERVER, 66L << 20), new GpuProcess(900, 1)));
    await(() -> !recovery.recovering(GPU));

    assertThat(restarts).isEmpty();
    assertThat(
            metrics.counter(
                "smslice_node_gpu_fault_recoveries_total",
                "gpu=\"" + GPU + "\",result=\"clients-exited\""))
        .isEqualTo(1);
    assertThat(
            metrics.counter(
                "smslice_node_gpu_client_faults_total", "gpu=\"" + GPU + "\",xid=\"43\""))
        .isEqualTo(2);
    double seconds = recoverySeconds();
    assertThat(seconds).isGreaterThanOrEqualTo(0.1).isLessThan(0.6);
  }

  @Test
  void theNodesOwnContextOutsideMpsIsNoClientThatMustExit() throws Exception {
    int self = (int) ProcessHandle.current().pid();
    comm(self, "java");
    nvml.setProcesses(
        GPU, List.of(new GpuProcess(SERVER, 1), new GpuProcess(self, 1), new GpuProcess(801, 1)));
    recovery.onXid(new XidEvent(GPU, 31));
    await(() -> notices.size() == 1);
    nvml.setProcesses(GPU, List.of(new GpuProcess(SERVER, 1), new GpuProcess(self, 1)));
    await(() -> !recovery.recovering(GPU));

    assertThat(restarts).isEmpty();
    assertThat(recovery.lastRecovery(GPU).orElseThrow().result()).isEqualTo("clients-exited");
    assertThat(recovery.lastRecovery(GPU).orElseThrow().affected()).containsExactly(801);
  }

  @Test
  void aClientThatKeepsRunningAfterTheFaultGetsTheMpsDaemonRestarted() throws Exception {
    nvml.setProcesses(GPU, List.of(new GpuProcess(SERVER, 1), new GpuProcess(801, 1)));
    recovery.onXid(new XidEvent(GPU, 31));
    await(() -> !recovery.recovering(GPU));

    assertThat(restarts).containsExactly(GPU);
    assertThat(
            metrics.counter(
                "smslice_node_gpu_fault_recoveries_total",
                "gpu=\"" + GPU + "\",result=\"mps-restarted\""))
        .isEqualTo(1);
    assertThat(recoverySeconds()).isGreaterThanOrEqualTo(0.6);
  }

  @Test
  void faultsOnGpusWithoutAnMpsServerOfThisNodeAreLeftAlone() throws Exception {
    nvml.setProcesses(OTHER, List.of(new GpuProcess(801, 1)));
    recovery.onXid(new XidEvent(OTHER, 13));
    Thread.sleep(100);
    assertThat(notices).isEmpty();
    assertThat(recovery.recovering(OTHER)).isFalse();
  }

  @Test
  void theHealthMonitorPassesApplicationXidsOnAndKeepsTheGpuHealthy() throws Exception {
    nvml.setProcesses(GPU, List.of(new GpuProcess(801, 1)));
    try (GpuHealthMonitor health =
        new GpuHealthMonitor(
            nvml, Duration.ofMillis(50), Duration.ofSeconds(5), Clock.systemUTC())) {
      health.addApplicationFaultListener(recovery::onXid);
      health.start(List.of(GPU));
      nvml.injectXid(GPU, 79); // critical: the GPU is unhealthy, no client-fault notice
      nvml.injectXid(GPU, 43);
      await(() -> notices.size() == 1);
      assertThat(notices).containsExactly(GPU + " Xid 43");
    }
  }

  @Test
  void theAgentsWorkersStopBeforeTheWaitAndStartOnceTheClientsAreGone() throws Exception {
    nvml.setProcesses(
        GPU,
        List.of(
            new GpuProcess(SERVER, 1),
            new GpuProcess(801, 1),
            new GpuProcess(802, 1),
            new GpuProcess(WORKER, 1)));
    recovery.onXid(new XidEvent(GPU, 43));
    await(() -> steps.size() == 1);
    // The idle worker is stopped while the tenants that saw the fault still run.
    assertThat(steps).containsExactly("stop [801, 802, 803]");
    recovery.onXid(new XidEvent(GPU, 13)); // another fault during the recovery joins it
    Thread.sleep(100);
    assertThat(recovery.recovering(GPU)).isTrue();
    assertThat(steps).hasSize(1);

    // The kubelet's restarted tenant (900) is not one that saw the fault.
    nvml.setProcesses(GPU, List.of(new GpuProcess(SERVER, 1), new GpuProcess(900, 1)));
    await(() -> !recovery.recovering(GPU));
    assertThat(steps).containsExactly("stop [801, 802, 803]", "start [900]");
    assertThat(restarts).isEmpty();
  }

  @Test
  void onTimeoutTheMpsDaemonIsRestartedBeforeTheWorkersStart() throws Exception {
    nvml.setProcesses(
        GPU, List.of(new GpuProcess(SERVER, 1), new GpuProcess(801, 1), new GpuProcess(WORKER, 1)));
    recovery.onXid(new XidEvent(GPU, 31));
    await(() -> !recovery.recovering(GPU));
    assertThat(steps).containsExactly("stop [801, 803]", "mps-restart [801]", "start []");
  }

  @Test
  void aGpuWithoutAnMpsServerOfThisNodeKeepsItsWorkers() throws Exception {
    nvml.setProcesses(OTHER, List.of(new GpuProcess(801, 1), new GpuProcess(WORKER, 1)));
    recovery.onXid(new XidEvent(OTHER, 43));
    Thread.sleep(100);
    assertThat(steps).isEmpty();
  }

  private double recoverySeconds() {
    String line =
        metrics
            .scrape()
            .lines()
            .filter(l -> l.startsWith("smslice_node_gpu_fault_recovery_seconds{gpu=\"" + GPU))
            .findFirst()
            .orElseThrow();
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plusSeconds(10);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not met in 10 s");
      }
      Thread.sleep(10);
    }
  }
}
