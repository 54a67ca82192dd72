package io.smslice.node.tools;

import io.smslice.agent.Agent;
import io.smslice.agent.verify.TransparentVerification;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.node.NodeSide;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.ClientFaultRecovery;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.NativeNvml;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.nvml.XidEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The node's recovery from an MPS client's fault, on a real GPU, for the interposer's verification
 * (device-plugin/interposer/verify/run-on-gpu.sh): the pieces the node's main wires, without
 * Kubernetes. The node's {@link MpsDaemonManager} owns the GPU's MPS control daemon; the agent
 * serves the named claims in worker mode under it (environment files and attach log as {@link
 * TransparentVerification} writes them); NVML's Xid events reach {@link ClientFaultRecovery}
 * through the health monitor, which stops and starts the agent's workers and restarts the daemon
 * through the manager. Every Xid, fault notice and finished recovery goes to {@code
 * <work>/faults.log} with its epoch time. Runs until {@code <work>/stop} appears.
 *
 * <p>Usage: {@code FaultRecoveryCheck <work dir> <mps dir> <name>=<groups>...}; the daemon's pipe
 * is {@code <mps dir>/pipe}. System properties: {@code smslice.backend} (cuda, or simulated with a
 * simulated NVML to try the wiring without a GPU), {@code smslice.faultRecoveryTimeout} (seconds
 * the faulted clients may take to exit before the daemon is restarted; the node's default).
 */
public final class FaultRecoveryCheck implements AutoCloseable {
  private final Path work;
  private final GpuDevice gpu;
  private final Set<String> claims;
  private final MpsDaemonManager mps;
  private final Agent agent;
  private final GpuHealthMonitor health;
  private final ClientFaultRecovery faults;
  private final Set<String> attached = new LinkedHashSet<>();
  private Optional<ClientFaultRecovery.Outcome> logged = Optional.empty();

  private FaultRecoveryCheck(
      Path work,
      GpuDevice gpu,
      Set<String> claims,
      MpsDaemonManager mps,
      Agent agent,
      GpuHealthMonitor health,
      ClientFaultRecovery faults) {
    this.work = work;
    this.gpu = gpu;
    this.claims = claims;
    this.mps = mps;
    this.agent = agent;
    this.health = health;
    this.faults = faults;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: FaultRecoveryCheck <work dir> <mps dir> <name>=<groups>...");
      System.exit(2);
    }
    String backendName = System.getProperty("smslice.backend", "cuda");
    Duration timeout =
        Duration.ofSeconds(
            Long.getLong(
                "smslice.faultRecoveryTimeout",
                NodeSide.Timings.PRODUCTION.faultRecovery().toSeconds()));
    try (GpuBackend backend = Backends.open(backendName);
        Nvml nvml =
            backend.simulated() ? SimulatedNvml.mirroring(backend.devices()) : NativeNvml.open();
        FaultRecoveryCheck check =
            start(
                backend,
                nvml,
                List.of("nvidia-cuda-mps-control"),
                Path.of("/proc"),
                Path.of(args[0]),
                Path.of(args[1]),
                List.of(args).subList(2, args.length),
                timeout)) {
      check.runUntilStopped();
    }
  }

  /**
   * Starts the GPU's MPS daemon, the agent with the claims in worker mode and the fault recovery,
   * then writes {@code <work>/ready}. The caller owns the backend and NVML.
   */
  public static FaultRecoveryCheck start(
      GpuBackend backend,
      Nvml nvml,
      List<String> mpsCommand,
      Path proc,
      Path work,
      Path mpsDirectory,
      List<String> claimSpecs,
      Duration recoveryTimeout)
      throws Exception {
    GpuDevice gpu = backend.devices().getFirst();
    Map<String, List<Integer>> claims = TransparentVerification.claims(claimSpecs, gpu);
    Files.createDirectories(work);
    NodeMetrics metrics = new NodeMetrics();
    MpsDaemonManager mps = new MpsDaemonManager(mpsCommand, uuid -> mpsDirectory, metrics);
    Agent agent = null;
    GpuHealthMonitor health = null;
    ClientFaultRecovery faults = null;
    try {
      mps.start(gpu.uuid());
      mps.awaitReady(gpu.uuid(), Duration.ofSeconds(15));
      agent = Agent.start(TransparentVerification.options(work), null, backend, mps);
      health =
          new GpuHealthMonitor(
              new XidLog(nvml, work),
              Duration.ofSeconds(10),
              Duration.ofMinutes(5),
              Clock.systemUTC());
      faults =
          ClientFaultRecovery.watching(
              health,
              gpu.uuid()::equals,
              nvml,
              proc,
              mps,
              (uuid, xid, at) ->
                  append(work, "fault xid=" + xid + " gpu=" + uuid + " at=" + epoch(at)),
              NodeWithAgent.workers(agent),
              metrics,
              recoveryTimeout);
      TransparentVerification.serve(agent, gpu, claims, work);
      health.start(List.of(gpu.uuid()));
      append(work, "mps-daemon pid=" + mps.pid(gpu.uuid()) + " at=" + epoch(Instant.now()));
      Files.writeString(work.resolve("ready"), gpu.uuid() + "\n");
      return new FaultRecoveryCheck(work, gpu, claims.keySet(), mps, agent, health, faults);
    } catch (Exception | Error e) {
      new FaultRecoveryCheck(work, gpu, claims.keySet(), mps, agent, health, faults).close();
      throw e;
    }
  }

  /**
   * Records each newly finished recovery and new attachments until {@code <work>/stop} appears. The
   * attachments are read on their own thread: asking a worker held stopped for its processes waits
   * for the request timeout, which must not delay the recovery's record.
   */
  public void runUntilStopped() throws Exception {
    Thread attachments =
        Thread.ofPlatform()
            .daemon()
            .name("attached-log")
            .start(
                () -> {
                  try {
                    while (!stopped()) {
                      TransparentVerification.logAttached(agent, claims, work, attached);
                      Thread.sleep(100);
                    }
                  } catch (Exception e) {
                    append(work, "attached-log failed: " + e);
                  }
                });
    while (!stopped()) {
      recordRecovery();
      Thread.sleep(50);
    }
    recordRecovery();
    attachments.join(Duration.ofSeconds(1));
  }

  private boolean stopped() {
    return Files.exists(work.resolve("stop"));
  }

  private void recordRecovery() {
    Optional<ClientFaultRecovery.Outcome> last = faults.lastRecovery(gpu.uuid());
    if (last.isPresent() && !last.equals(logged)) {
      ClientFaultRecovery.Outcome o = last.get();
      append(
          work,
          String.format(
              "recovery xid=%d result=%s seconds=%.3f fault-at=%s affected=%s mps-pid=%d"
                  + " logged-at=%s",
              o.xid(),
              o.result(),
              o.seconds(),
              epoch(o.faultAt()),
              o.affected().toString().replace(" ", ""),
              mps.pid(gpu.uuid()),
              epoch(Instant.now())));
      logged = last;
    }
  }

  private static String epoch(Instant at) {
    return String.format("%d.%03d", at.getEpochSecond(), at.getNano() / 1_000_000);
  }

  static void append(Path work, String line) {
    try {
      Files.writeString(
          work.resolve("faults.log"),
          line + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops as the node does: the recovery and health first, then the agent, then the daemon. */
  @Override
  public void close() {
    if (faults != null) {
      faults.close();
    }
    if (health != null) {
      health.close();
    }
    if (agent != null) {
      agent.close();
    }
    mps.close();
  }

  /** NVML as the node reads it, with every Xid event (application or not) logged. */
  private record XidLog(Nvml nvml, Path work) implements Nvml {
    @Override
    public Optional<XidEvent> awaitXid(Duration timeout) throws InterruptedException {
      var event = nvml.awaitXid(timeout);
      event.ifPresent(
          e ->
              append(
                  work,
                  "nvml-xid xid="
                      + e.xid()
                      + " gpu="
                      + e.gpuUuid()
                      + " at="
                      + epoch(Instant.now())));
      return event;
    }

    @Override
    public String driverVersion() {
      return nvml.driverVersion();
    }

    @Override
    public List<NvmlGpu> gpus() {
      return nvml.gpus();
    }

    @Override
    public Optional<String> healthProblem(String gpuUuid) {
      return nvml.healthProblem(gpuUuid);
    }

    @Override
    public List<GpuProcess> computeProcesses(String gpuUuid) {
      return nvml.computeProcesses(gpuUuid);
    }

    @Override
    public Optional<GpuActivity> activity(String gpuUuid) {
      return nvml.activity(gpuUuid);
    }

    @Override
    public void close() {}
  }
}
