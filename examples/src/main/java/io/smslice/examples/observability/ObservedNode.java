package io.smslice.examples.observability;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.RunMode;
import io.smslice.agent.guard.GpuGuard;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.gpu.MpsServers;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.MetricsServer;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.metrics.TransparentMetrics;
import io.smslice.node.mps.ClientFaultRecovery;
import io.smslice.node.nvml.SimulatedNvml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The node side's metrics with transparent claims on the simulated GPU, for a Prometheus to scrape
 * (examples/observability/prometheus-run.sh): the agent in worker mode with its interference guard
 * on, a latency-critical and a best-effort claim sharing one simulated H200, {@link StandInTenant}
 * processes attached to them, the node's client-fault recovery, and /metrics served as the node
 * side serves it. One application Xid is injected into the simulated NVML partway through; the
 * tenants do not exit on it, so the recovery restarts the GPU's "MPS server", here: the tenants.
 *
 * <p>{@code ObservedNode [--port=9464] [--seconds=150] [--xid-at=75] --work=DIR}
 */
public final class ObservedNode {
  private ObservedNode() {}

  public static void main(String[] args) throws Exception {
    int port = 9464;
    int seconds = 150;
    int xidAt = 75;
    Path work = null;
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException(arg + " needs a value (--name=value)");
      }
      switch (kv[0]) {
        case "--port" -> port = Integer.parseInt(kv[1]);
        case "--seconds" -> seconds = Integer.parseInt(kv[1]);
        case "--xid-at" -> xidAt = Integer.parseInt(kv[1]);
        case "--work" -> work = Path.of(kv[1]).toAbsolutePath();
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + arg
                    + "; options: --port=N, --seconds=N, --xid-at=N (0: none), --work=DIR");
      }
    }
    if (work == null) {
      throw new IllegalArgumentException("--work=DIR is required");
    }
    run(port, seconds, xidAt, work);
  }

  private static void run(int port, int seconds, int xidAt, Path work) throws Exception {
    Files.createDirectories(work.resolve("shm"));
    SimulatedBackend backend = SimulatedBackend.h200(1);
    String gpu = backend.devices().getFirst().uuid();
    SimulatedNvml nvml = SimulatedNvml.mirroring(backend.devices());
    NodeMetrics metrics = new NodeMetrics();
    StandInTenants tenants = new StandInTenants(work.resolve("tenants"), gpu, nvml);
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return work.resolve("mps");
          }

          @Override
          public void restart(String gpuUuid) {
            log("MPS server of " + gpuUuid + " restarted: its clients start again");
            tenants.restart();
          }
        };
    try (Agent agent =
            Agent.start(
                AgentOptions.of(
                    "observed-node", work.resolve("run"), work.resolve("state"), RunMode.WORKER),
                null,
                backend,
                mps);
        GpuHealthMonitor health =
            new GpuHealthMonitor(
                nvml, Duration.ofSeconds(1), Duration.ofMinutes(5), Clock.systemUTC())) {
      agent.useGuard(work.resolve("shm"), GpuGuard.Settings.DEFAULTS);
      metrics.include(agent::renderMetrics);
      TransparentMetrics.register(metrics, () -> NodeWithAgent.claimStates(agent), nvml);
      health.start(List.of(gpu));
      ClientFaultRecovery faults =
          ClientFaultRecovery.watching(
              health,
              uuid -> true,
              nvml,
              Path.of("/proc"),
              mps,
              (uuid, xid, at) -> log("Xid " + xid + " on " + uuid + ": its claims' users are told"),
              NodeWithAgent.workers(agent),
              metrics,
              Duration.ofSeconds(10));
      agent.serve(
          new BoundClaim("ml", "detector", gpu, List.of(0, 1), 8L << 30, Priority.LatencyCritical));
      agent.serve(
          new BoundClaim(
              "ml",
              "trainer",
              gpu,
              List.of(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14),
              96L << 30,
              Priority.BestEffort));
      Path guard = Agent.guardFile(work.resolve("shm"), gpu);
      // A detector frame every 5 ms (about 1 ms of GPU time on its 16 SMs); trainers back to back.
      tenants.add(agent, "ml", "detector", "LatencyCritical", guard, 192, 2_000_000, 5000);
      tenants.add(agent, "ml", "trainer", "BestEffort", guard, 640, 5_000_000, 0);
      try (MetricsServer server = new MetricsServer(port, metrics)) {
        log("metrics on :" + server.port() + "/metrics; GPU " + gpu + " (simulated)");
        long start = System.nanoTime();
        boolean secondTrainer = false;
        boolean injected = xidAt <= 0;
        while (System.nanoTime() - start < seconds * 1_000_000_000L) {
          long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
          if (!secondTrainer && elapsed >= seconds / 3) {
            tenants.add(agent, "ml", "trainer", "BestEffort", guard, 384, 5_000_000, 0);
            secondTrainer = true;
            log("a second trainer process attached");
          }
          if (!injected && elapsed >= xidAt) {
            nvml.injectXid(gpu, 31);
            injected = true;
            log("Xid 31 (a client's MMU fault) injected into the simulated NVML");
          }
          tenants.publish();
          Thread.sleep(500);
        }
      } finally {
        faults.close();
        tenants.close();
      }
    }
  }

  static void log(String line) {
    System.out.println(Instant.now() + " " + line);
    System.out.flush();
  }
}
