package io.smslice.node.mps;

import io.smslice.gpu.MpsServers;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.XidEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * A client's fatal fault on a GPU shared through MPS reaches every client of that GPU, and the MPS
 * server takes no new work until all of them have exited. On an application Xid this tells the
 * affected claims and pods, stops the agent's workers on the GPU (MPS clients too; idle ones never
 * see the error and would hold the server in the fault state), waits until every process that had a
 * context on the GPU at the fault is gone (the GPU serves again), restarts the GPU's MPS daemon
 * when that takes longer than the recovery timeout (a client that caught the error and kept running
 * would block the GPU for good), starts the workers again, and records how long the GPU did not
 * serve. One recovery per GPU at a time: a fault during one joins it.
 */
public final class ClientFaultRecovery implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ClientFaultRecovery.class.getName());

  /** Who is told about a fault. */
  @FunctionalInterface
  public interface Notice {
    void clientFault(String gpuUuid, long xid, Instant at);
  }

  /** The agent's worker processes on a GPU, each a client of its MPS server. */
  public interface Workers {
    /** Stops them; returns once they are stopped. */
    void stop(String gpuUuid);

    /** Starts them again. */
    void start(String gpuUuid);

    /** A node without agent workers. */
    Workers NONE =
        new Workers() {
          @Override
          public void stop(String gpuUuid) {}

          @Override
          public void start(String gpuUuid) {}
        };
  }

  private final Predicate<String> sharedThroughMps;
  private final Nvml nvml;
  private final Path proc;
  private final MpsServers mps;
  private final Notice notice;
  private final Workers workers;
  private final NodeMetrics metrics;
  private final Duration timeout;
  private final Duration poll;
  private final Clock clock;

  /**
   * A finished recovery of one GPU.
   *
   * @param affected the client processes that had a context on the GPU at the fault
   * @param result clients-exited, mps-restarted or failed
   * @param seconds from the fault until the clients were gone (or the daemon was restarted)
   */
  public record Outcome(
      long xid, Instant faultAt, List<Integer> affected, String result, double seconds) {}

  private final Set<String> recovering = ConcurrentHashMap.newKeySet();
  private final Map<String, Outcome> lastRecovery = new ConcurrentHashMap<>();
  private final ExecutorService worker =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().name("mps-fault-recovery").daemon().factory());

  /**
   * @param sharedThroughMps whether a GPU's clients share an MPS server that this node runs
   * @param proc the host's /proc (the node runs in the host PID namespace), to tell the MPS server
   *     from its clients
   * @param timeout how long the clients may take to exit before the MPS daemon is restarted
   */
  public ClientFaultRecovery(
      Predicate<String> sharedThroughMps,
      Nvml nvml,
      Path proc,
      MpsServers mps,
      Notice notice,
      Workers workers,
      NodeMetrics metrics,
      Duration timeout,
      Duration poll,
      Clock clock) {
    this.sharedThroughMps = sharedThroughMps;
    this.nvml = nvml;
    this.proc = proc;
    this.mps = mps;
    this.notice = notice;
    this.workers = workers;
    this.metrics = metrics;
    this.timeout = timeout;
    this.poll = poll;
    this.clock = clock;
    metrics.gauge(
        "smslice_node_gpu_fault_recovery_seconds",
        "Seconds the GPU served no MPS client after the last client fault, until every client"
            + " that saw the fault had exited (or the MPS daemon was restarted).",
        () ->
            lastRecovery.entrySet().stream()
                .collect(
                    Collectors.toMap(
                        e -> "gpu=\"" + e.getKey() + "\"", e -> e.getValue().seconds())));
  }

  /**
   * As the node side runs it: recovers the GPUs shared through MPS from the application Xids the
   * health monitor reports, polling NVML every 100 ms.
   */
  public static ClientFaultRecovery watching(
      GpuHealthMonitor health,
      Predicate<String> sharedThroughMps,
      Nvml nvml,
      Path proc,
      MpsServers mps,
      Notice notice,
      Workers workers,
      NodeMetrics metrics,
      Duration timeout) {
    ClientFaultRecovery faults =
        new ClientFaultRecovery(
            sharedThroughMps,
            nvml,
            proc,
            mps,
            notice,
            workers,
            metrics,
            timeout,
            Duration.ofMillis(100),
            Clock.systemUTC());
    health.addApplicationFaultListener(faults::onXid);
    return faults;
  }

  /** Handles an application Xid; returns at once. */
  public void onXid(XidEvent event) {
    if (!sharedThroughMps.test(event.gpuUuid())) {
      return;
    }
    Instant at = clock.instant();
    metrics.clientFault(event.gpuUuid(), event.xid());
    if (!recovering.add(event.gpuUuid())) {
      return; // the same fault, reported to another client, or one more during recovery
    }
    Set<Integer> affected = clients(event.gpuUuid());
    worker.execute(() -> recover(event, at, affected));
  }

  /** Whether a recovery of this GPU is under way. */
  public boolean recovering(String gpuUuid) {
    return recovering.contains(gpuUuid);
  }

  /** The GPU's last finished recovery. */
  public Optional<Outcome> lastRecovery(String gpuUuid) {
    return Optional.ofNullable(lastRecovery.get(gpuUuid));
  }

  private void recover(XidEvent event, Instant at, Set<Integer> affected) {
    String gpu = event.gpuUuid();
    String result = "failed";
    Instant done = null;
    try {
      LOG.warning(
          "Xid "
              + event.xid()
              + " on GPU "
              + gpu
              + ": an MPS client faulted; "
              + affected.size()
              + " client process(es) saw it: "
              + affected);
      try {
        notice.clientFault(gpu, event.xid(), at);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "telling the claims of " + gpu + " about the fault failed", e);
      }
      boolean stopped = stopWorkers(gpu);
      try {
        result = awaitClients(gpu, affected);
      } finally {
        done = clock.instant();
        if (stopped) {
          startWorkers(gpu);
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.SEVERE, "GPU " + gpu + ": recovering from a client fault failed", e);
    } finally {
      double seconds = Duration.between(at, done != null ? done : clock.instant()).toNanos() / 1e9;
      lastRecovery.put(
          gpu, new Outcome(event.xid(), at, affected.stream().sorted().toList(), result, seconds));
      metrics.faultRecovery(gpu, result);
      LOG.warning(
          "GPU " + gpu + " after Xid " + event.xid() + ": " + result + " in " + seconds + " s");
      recovering.remove(gpu);
    }
  }

  /** Waits for the clients that saw the fault to exit; restarts the MPS daemon if they do not. */
  private String awaitClients(String gpu, Set<Integer> affected) throws IOException {
    if (awaitGone(gpu, affected)) {
      return "clients-exited";
    }
    LOG.warning(
        "GPU "
            + gpu
            + ": clients "
            + still(gpu, affected)
            + " still hold the faulted MPS server after "
            + timeout.toSeconds()
            + " s; restarting its MPS daemon");
    mps.restart(gpu);
    return awaitGone(gpu, affected) ? "mps-restarted" : "failed";
  }

  private boolean stopWorkers(String gpu) {
    try {
      workers.stop(gpu);
      return true;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "GPU " + gpu + ": stopping the agent's workers failed", e);
      return false;
    }
  }

  private void startWorkers(String gpu) {
    try {
      workers.start(gpu);
    } catch (RuntimeException e) {
      LOG.log(Level.SEVERE, "GPU " + gpu + ": starting the agent's workers again failed", e);
    }
  }

  private boolean awaitGone(String gpu, Set<Integer> affected) {
    Instant deadline = clock.instant().plus(timeout);
    while (true) {
      if (still(gpu, affected).isEmpty()) {
        return true;
      }
      if (!clock.instant().isBefore(deadline)) {
        return false;
      }
      try {
        Thread.sleep(poll);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  private Set<Integer> still(String gpu, Set<Integer> affected) {
    Set<Integer> now = clients(gpu);
    now.retainAll(affected);
    return now;
  }

  /**
   * Pids with a context on the GPU, without the MPS server (it stays across a client fault) and
   * without this process: the node's agent keeps the GPU's primary context, outside MPS (the node
   * runs without the MPS pipe), so it never sees a client's fault and never exits for one.
   */
  private Set<Integer> clients(String gpu) {
    long self = ProcessHandle.current().pid();
    return nvml.computeProcesses(gpu).stream()
        .map(GpuProcess::pid)
        .filter(pid -> pid != self && !mpsServer(pid))
        .collect(Collectors.toCollection(java.util.HashSet::new));
  }

  private boolean mpsServer(int pid) {
    try {
      // comm holds 15 characters: "nvidia-cuda-mps" for nvidia-cuda-mps-server.
      return Files.readString(proc.resolve(Integer.toString(pid)).resolve("comm"))
          .strip()
          .startsWith("nvidia-cuda-mps");
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
