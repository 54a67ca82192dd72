package io.smslice.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.claims.ClaimWatcher;
import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.guard.DeadOwnerSweep;
import io.smslice.agent.guard.GpuGuard;
import io.smslice.agent.metrics.ClaimSample;
import io.smslice.agent.metrics.GuardMetricsText;
import io.smslice.agent.metrics.MetricsSnapshot;
import io.smslice.agent.metrics.MetricsText;
import io.smslice.agent.server.ClaimRuntime;
import io.smslice.agent.server.ClaimServer;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.MpsServers;
import io.smslice.protocol.GuardLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The node agent: serves each SliceClaim bound to a green-mode GPU of this node in its own green
 * context, on a Unix socket per claim. The device plugin uses it as {@link ClaimAccess}; the node
 * side's /metrics includes {@link #renderMetrics()}.
 *
 * <p>No agent-wide lock is held while a claim works: lookups and metrics read a concurrent map, and
 * serving, resizing and releasing one claim lock only that claim, so a busy or broken claim never
 * holds up another claim's Allocate or the metrics endpoint.
 */
public final class Agent implements ClaimAccess, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Agent.class.getName());

  /** How often dead latency-critical owners' busy marks are looked for. */
  private static final Duration SWEEP_PERIOD = Duration.ofSeconds(1);

  private final AgentOptions options;
  private final GpuBackend backend;
  private final MpsServers mps;
  private final TokenStore tokens;
  private final TenantEnvironmentFiles tenantEnvironments;
  private final FaultRecovery recovery;
  private final WorkerRecovery workerRecovery;
  private final Map<String, ServedClaim> served = new ConcurrentHashMap<>();

  /** One lock per claim key, held while the claim is started, resized or released. */
  private final Map<String, Object> claimLocks = new ConcurrentHashMap<>();

  /** GPUs this process can no longer use after a fault; their claims run in workers. */
  private final Set<String> workersOnly = ConcurrentHashMap.newKeySet();

  private ClaimWatcher watcher;

  /** Where each GPU's guard file goes, once {@link #useGuard} was called. */
  private volatile Path guardDirectory;

  private volatile GpuGuard.Settings guardSettings;
  private final Map<String, GpuGuard> guards = new ConcurrentHashMap<>();

  /** Which GPUs may have the guard on at all (the node's pressure gate); all, unless set. */
  private volatile java.util.function.Predicate<String> guardGate = gpu -> true;

  /** One decision at a time, so a stale one from another thread cannot land last. */
  private final Object guardDecision = new Object();

  /** Clears dead latency-critical owners' busy marks in the GPUs' guard files. */
  private final DeadOwnerSweep guardSweep = new DeadOwnerSweep(guards::values, SWEEP_PERIOD);

  private Agent(AgentOptions options, GpuBackend backend, MpsServers mps) {
    this.options = options;
    this.backend = backend;
    this.mps = mps;
    this.tokens = new TokenStore(options.stateDir());
    this.tenantEnvironments = new TenantEnvironmentFiles(options.runDir());
    this.recovery = new FaultRecovery(backend, this::runtimesOn, this::relocateToWorkers);
    this.workerRecovery = new WorkerRecovery(mps, this::workersOn);
  }

  /**
   * Starts the agent. With a Kubernetes client it watches the SliceClaims labelled {@code
   * smslice.io/node=<nodeName>} and serves, resizes and releases them as their bindings change;
   * with {@code null} claims are served only through {@link #serve} (tests, demos, benchmarks).
   *
   * @param mps the node's MPS daemons; in worker run mode each worker is a client of its GPU's
   *     daemon (null: workers run without MPS, which only a simulated backend should do)
   */
  public static Agent start(
      AgentOptions options, KubernetesClient client, GpuBackend backend, MpsServers mps) {
    Agent agent = new Agent(options, backend, mps);
    LOG.log(
        System.Logger.Level.INFO,
        "agent on node {0}: backend {1}{2}, run mode {3}",
        options.nodeName(),
        backend.backendName(),
        backend.simulated() ? " (SIMULATED: no GPU work is real)" : "",
        options.runMode().configName());
    if (client != null) {
      agent.watcher = ClaimWatcher.start(client, options.nodeName(), backend, agent);
    }
    return agent;
  }

  /**
   * Serves a claim, or brings a served one to this binding: new groups or quota resize it in place
   * (live sessions kept), a new GPU restarts it.
   */
  public void serve(BoundClaim claim) throws GpuException, IOException {
    backend.device(claim.gpuUuid());
    synchronized (lockOf(claim.key())) {
      serveLocked(claim);
    }
  }

  private Object lockOf(String key) {
    return claimLocks.computeIfAbsent(key, k -> new Object());
  }

  private void serveLocked(BoundClaim claim) throws GpuException, IOException {
    ServedClaim current = served.get(claim.key());
    if (current instanceof InAgentClaim inAgent && inAgent.runtime().failure() != null) {
      LOG.log(
          System.Logger.Level.WARNING,
          "claim {0} failed ({1}); serving it anew",
          claim.key(),
          inAgent.runtime().failure());
      releaseLocked(claim.key());
      current = null;
    }
    if (current != null && current.binding().gpuUuid().equals(claim.gpuUuid())) {
      Priority before = current.binding().priority();
      if (!current.binding().groups().equals(claim.groups())
          || current.binding().memoryBytes() != claim.memoryBytes()) {
        long nanos = current.resize(claim);
        LOG.log(
            System.Logger.Level.INFO,
            "claim {0} resized to groups {1} in {2} ms",
            claim.key(),
            claim.groups(),
            nanos / 1e6);
      }
      if (before != claim.priority()) {
        current.rebind(claim);
        joinGuard(current, claim);
      }
      return;
    }
    if (current != null) {
      releaseLocked(claim.key());
    }
    ServedClaim started =
        options.runMode() == RunMode.WORKER || workersOnly.contains(claim.gpuUuid())
            ? WorkerClaim.start(
                options,
                backend.backendName(),
                mps,
                claim,
                code -> workerRecovery.workerExited(claim, code))
            : new InAgentClaim(startServer(claim), claim);
    served.put(claim.key(), started);
    joinGuard(started, claim);
    LOG.log(
        System.Logger.Level.INFO,
        "claim {0} served ({1}) on {2}: groups {3} at {4}",
        claim.key(),
        options.runMode().configName(),
        claim.gpuUuid(),
        claim.groups(),
        started.socket());
  }

  private ClaimServer startServer(BoundClaim claim) throws GpuException, IOException {
    ClaimServer.Spec spec =
        new ClaimServer.Spec(
            claim.namespace(),
            claim.name(),
            claim.gpuUuid(),
            claim.groups(),
            claim.memoryBytes(),
            options.claimDirectory(claim.namespace(), claim.name()));
    return ClaimServer.start(
        spec,
        backend,
        new ClaimServer.Settings(
            options.sharedDataBytes(),
            options.maxSessionsPerClaim(),
            options.maxFrameBytes(),
            options.connections(),
            false),
        token -> tokens.accepts(claim.namespace(), claim.name(), token),
        recovery);
  }

  /** Stops serving a claim: ends its sessions, destroys its green context, removes its socket. */
  public void release(String namespace, String claim) {
    String key = namespace + "/" + claim;
    synchronized (lockOf(key)) {
      releaseLocked(key);
    }
  }

  private void releaseLocked(String key) {
    ServedClaim server = served.remove(key);
    if (server != null) {
      server.close();
      updateGuard(server.binding().gpuUuid());
      LOG.log(System.Logger.Level.INFO, "claim {0} released", key);
    }
  }

  /**
   * Turns on the interference guard (docs/interference-guard.md): one file per GPU in {@code
   * directory}, which tenants of the GPU see at the same path (the node's shared /dev/shm).
   */
  public void useGuard(Path directory, GpuGuard.Settings settings) {
    this.guardSettings = settings;
    this.guardDirectory = directory;
    for (String key : List.copyOf(served.keySet())) {
      synchronized (lockOf(key)) {
        ServedClaim claim = served.get(key);
        if (claim != null) {
          joinGuard(claim, claim.binding());
        }
      }
    }
  }

  /** A GPU's guard file in the guard's directory: its tenants get this path in SMSLICE_GUARD. */
  public static Path guardFile(Path directory, String gpuUuid) {
    return directory.resolve("smslice-guard-" + gpuUuid);
  }

  private Optional<GpuGuard> guardOf(String gpuUuid) {
    Path directory = guardDirectory;
    if (directory == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          guards.computeIfAbsent(
              gpuUuid,
              uuid -> {
                try {
                  return GpuGuard.create(guardFile(directory, uuid), guardSettings);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              }));
    } catch (UncheckedIOException e) {
      LOG.log(
          System.Logger.Level.ERROR,
          "interference guard of GPU {0} off: cannot make its file in {1}: {2}",
          gpuUuid,
          directory,
          e.getCause().getMessage());
      return Optional.empty();
    }
  }

  /** An in-agent claim's executor takes its slot; then the GPU's guard is turned on or off. */
  private void joinGuard(ServedClaim claim, BoundClaim binding) {
    int role =
        switch (binding.priority()) {
          case LatencyCritical -> GuardLayout.ROLE_LATENCY_CRITICAL;
          case BestEffort -> GuardLayout.ROLE_BEST_EFFORT;
          default -> 0;
        };
    if (claim instanceof InAgentClaim inAgent) {
      ClaimGuard slot =
          role == 0
              ? null
              : guardOf(binding.gpuUuid()).flatMap(g -> g.join(binding.key(), role)).orElse(null);
      inAgent.runtime().useGuard(slot);
    }
    updateGuard(binding.gpuUuid());
  }

  /**
   * Per claim ({@code namespace/name}), the best-effort holds the guard's cap has ended, summed
   * over its slots (processes and executors) on every GPU.
   */
  public Map<String, Long> guardCapCuts() {
    Map<String, Long> cuts = new java.util.TreeMap<>();
    for (GpuGuard guard : guards.values()) {
      for (GpuGuard.Slot s : guard.slots()) {
        if (s.role() == GuardLayout.ROLE_BEST_EFFORT && !s.claim().isEmpty()) {
          cuts.merge(s.claim(), (long) s.capCuts(), Long::sum);
        }
      }
    }
    return cuts;
  }

  /**
   * Lets the guard be on only on GPUs {@code gate} accepts (the node's NVML pressure gate); {@link
   * #refreshGuards} applies a change of its answer.
   */
  public void gateGuard(java.util.function.Predicate<String> gate) {
    guardGate = gate;
    refreshGuards();
  }

  /** Turns each GPU's guard on or off again, as its claims and the gate say now. */
  public void refreshGuards() {
    guards.keySet().forEach(this::updateGuard);
  }

  /**
   * On while latency-critical and best-effort claims share the GPU and the gate lets it be, off
   * otherwise.
   */
  private void updateGuard(String gpuUuid) {
    if (guardDirectory == null) {
      return;
    }
    synchronized (guardDecision) {
      decideGuard(gpuUuid);
    }
  }

  private void decideGuard(String gpuUuid) {
    Set<Priority> present =
        served.values().stream()
            .map(ServedClaim::binding)
            .filter(b -> b.gpuUuid().equals(gpuUuid))
            .map(BoundClaim::priority)
            .collect(Collectors.toSet());
    boolean on =
        present.contains(Priority.LatencyCritical)
            && present.contains(Priority.BestEffort)
            && guardGate.test(gpuUuid);
    guardOf(gpuUuid).ifPresent(g -> g.enable(on));
  }

  /**
   * Told the GPU's UUID when an in-agent fault could not be recovered inside this process (see
   * {@link FaultRecovery}); the owner should restart the agent's process.
   */
  public void onUnrecoverableGpu(java.util.function.Consumer<String> listener) {
    recovery.onUnrecoverable(listener);
  }

  /**
   * The node saw a client fault on this GPU's MPS server: stops the agent's workers on it (idle
   * ones never see the error, and MPS takes no new client while any client that saw it lives);
   * returns once they are stopped. False when a recovery of the GPU was already under way (this
   * fault joins it). Start them with {@link #startWorkers} once the GPU takes new clients.
   */
  public boolean stopWorkers(String gpuUuid) {
    return workerRecovery.hold(gpuUuid);
  }

  /** Starts the workers {@link #stopWorkers} stopped, on the same sockets; returns at once. */
  public void startWorkers(String gpuUuid) {
    workerRecovery.resume(gpuUuid);
  }

  /**
   * Every claim the agent serves, and every bound claim its claim watcher failed to serve (the
   * green context or the worker could not be made), for the node's SliceNode.
   */
  public List<ClaimStatus> claimStatuses() {
    List<ClaimStatus> all = new ArrayList<>();
    List<ServedClaim> now;
    synchronized (this) {
      now = List.copyOf(served.values());
    }
    for (ServedClaim s : now) {
      BoundClaim b = s.binding();
      all.add(new ClaimStatus(b.namespace(), b.name(), b.gpuUuid(), b.groups(), true, null));
    }
    if (watcher != null) {
      // A claim served again may still have its old failure recorded for a moment: serving wins.
      Set<String> serving = all.stream().map(ClaimStatus::key).collect(Collectors.toSet());
      watcher.failures().stream().filter(f -> !serving.contains(f.key())).forEach(all::add);
    }
    return all;
  }

  /** Forgets a deleted claim's tokens, and the files that carry them into containers. */
  public void forgetTokens(String namespace, String claim) {
    tokens.forget(namespace, claim);
    tenantEnvironments.forget(namespace, claim);
  }

  @Override
  public Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim))
        .map(s -> new ClaimEndpoint(namespace, claim, s.directory(), s.socket()));
  }

  @Override
  public String issueToken(String namespace, String claim, String podUid, String container) {
    try {
      return tokens.issue(namespace, claim, podUid, container);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public Path tenantEnvironment(
      String namespace, String claim, String podUid, String container, Map<String, String> env) {
    try {
      return tenantEnvironments.write(namespace, claim, podUid, container, env);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The executor of a claim served in-agent (empty for worker-served claims). */
  public Optional<ClaimRuntime> runtime(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim))
        .filter(InAgentClaim.class::isInstance)
        .map(s -> ((InAgentClaim) s).runtime());
  }

  /** A served claim's current metrics, from the agent or its worker. */
  public Optional<MetricsSnapshot> metrics(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim))
        .map(s -> s.sample(modeOf(s)))
        .map(ClaimSample::metrics);
  }

  /**
   * The unmodified programs' processes attached to a served claim ({@code namespace/name}) now;
   * empty for a claim not served here.
   */
  public List<AttachedProcess> transparentProcesses(String claimKey) {
    ServedClaim claim;
    synchronized (this) {
      claim = served.get(claimKey);
    }
    return claim == null ? List.of() : claim.transparentProcesses();
  }

  /**
   * After an in-agent fault this process cannot recover from: serves the GPU's claims from worker
   * processes under its MPS server instead, on the same sockets.
   */
  private boolean relocateToWorkers(String gpuUuid, long seen) {
    if (mps == null) {
      return false;
    }
    workersOnly.add(gpuUuid);
    List<InAgentClaim> moving = new ArrayList<>();
    try {
      mps.restart(gpuUuid);
      for (ServedClaim claim : served.values()) {
        if (claim instanceof InAgentClaim inAgent && claim.binding().gpuUuid().equals(gpuUuid)) {
          synchronized (lockOf(claim.binding().key())) {
            if (served.get(claim.binding().key()) == inAgent) {
              inAgent.close();
              moving.add(inAgent);
            }
          }
        }
      }
      List<CompletableFuture<WorkerClaim>> starts = new ArrayList<>();
      for (InAgentClaim claim : moving) {
        BoundClaim binding = claim.binding();
        starts.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return WorkerClaim.start(
                        options,
                        backend.backendName(),
                        mps,
                        binding,
                        code -> workerRecovery.workerExited(binding, code));
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }));
      }
      for (int i = 0; i < starts.size(); i++) {
        WorkerClaim worker = starts.get(i).join();
        worker.recovered(System.nanoTime() - seen);
        String key = worker.binding().key();
        synchronized (lockOf(key)) {
          // Released or served anew meanwhile: the new state wins.
          if (!served.replace(key, moving.get(i), worker)) {
            worker.close();
          }
        }
      }
      LOG.log(
          System.Logger.Level.WARNING,
          "GPU {0}: {1} claim(s) moved to worker processes in {2} ms",
          gpuUuid,
          moving.size(),
          (System.nanoTime() - seen) / 1e6);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "GPU " + gpuUuid + ": moving claims failed", e);
      return false;
    }
  }

  private List<ClaimRuntime> runtimesOn(String gpuUuid) {
    List<ClaimRuntime> runtimes = new ArrayList<>();
    for (ServedClaim claim : served.values()) {
      if (claim instanceof InAgentClaim inAgent && claim.binding().gpuUuid().equals(gpuUuid)) {
        runtimes.add(inAgent.runtime());
      }
    }
    return runtimes;
  }

  private List<WorkerClaim> workersOn(String gpuUuid) {
    List<WorkerClaim> workers = new ArrayList<>();
    for (ServedClaim claim : served.values()) {
      if (claim instanceof WorkerClaim worker && claim.binding().gpuUuid().equals(gpuUuid)) {
        workers.add(worker);
      }
    }
    return workers;
  }

  private static String modeOf(ServedClaim claim) {
    return (claim instanceof WorkerClaim ? RunMode.WORKER : RunMode.IN_AGENT).configName();
  }

  /** Prometheus text of every served claim's metrics. */
  public String renderMetrics() {
    List<ClaimSample> samples = new ArrayList<>();
    List<ServedClaim> claims = new ArrayList<>(served.values());
    claims.sort(Comparator.comparing(c -> c.binding().key()));
    for (ServedClaim claim : claims) {
      ClaimSample sample = claim.sample(modeOf(claim));
      if (sample != null) {
        samples.add(sample);
      }
    }
    return MetricsText.render(backend.backendName(), backend.simulated(), samples)
        + GuardMetricsText.render(guards);
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    // Recoveries first: one under way may still move or restart claims, which must all be gone.
    recovery.close();
    workerRecovery.close();
    guardSweep.close();
    for (String key : List.copyOf(served.keySet())) {
      synchronized (lockOf(key)) {
        releaseLocked(key);
      }
    }
  }
}
