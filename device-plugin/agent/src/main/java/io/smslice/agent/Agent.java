package io.smslice.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.claims.ClaimWatcher;
import io.smslice.agent.metrics.ClaimSample;
import io.smslice.agent.metrics.MetricsText;
import io.smslice.agent.server.ClaimRuntime;
import io.smslice.agent.server.ClaimServer;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.MpsServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node agent: serves each SliceClaim bound to a green-mode GPU of this node in its own green
 * context, on a Unix socket per claim. The device plugin uses it as {@link ClaimAccess}; the node
 * side's /metrics includes {@link #renderMetrics()}.
 */
public final class Agent implements ClaimAccess, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Agent.class.getName());

  private final AgentOptions options;
  private final GpuBackend backend;
  private final TokenStore tokens;
  private final FaultRecovery recovery;
  private final Map<String, ClaimServer> served = new LinkedHashMap<>();
  private ClaimWatcher watcher;

  private Agent(AgentOptions options, GpuBackend backend) {
    this.options = options;
    this.backend = backend;
    this.tokens = new TokenStore(options.stateDir());
    this.recovery = new FaultRecovery(backend, this::claimsOn);
  }

  /**
   * Starts the agent. With a Kubernetes client it watches the SliceClaims labelled {@code
   * smslice.io/node=<nodeName>} and serves, resizes and releases them as their bindings change;
   * with {@code null} claims are served only through {@link #serve} (tests, demos, benchmarks).
   *
   * @param mps the node's MPS daemons, used by the worker run mode
   */
  public static Agent start(
      AgentOptions options, KubernetesClient client, GpuBackend backend, MpsServers mps) {
    if (options.runMode() == RunMode.WORKER) {
      throw new UnsupportedOperationException(
          "runMode worker is not available yet in this build; configure runMode: in-agent");
    }
    Agent agent = new Agent(options, backend);
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
   * Serves a claim, or brings a served one to this binding: new groups resize it in place (live
   * sessions kept), a new GPU restarts it.
   */
  public synchronized void serve(BoundClaim claim) throws GpuException, IOException {
    ClaimServer current = served.get(claim.key());
    if (current != null && current.spec().gpuUuid().equals(claim.gpuUuid())) {
      if (!current.runtime().groups().equals(claim.groups())
          || current.runtime().memoryQuota() != claim.memoryBytes()) {
        long nanos = resize(current, claim);
        LOG.log(
            System.Logger.Level.INFO,
            "claim {0} resized to groups {1} in {2} ms",
            claim.key(),
            claim.groups(),
            nanos / 1e6);
      }
      return;
    }
    if (current != null) {
      release(claim.namespace(), claim.name());
    }
    ClaimServer.Spec spec =
        new ClaimServer.Spec(
            claim.namespace(),
            claim.name(),
            claim.gpuUuid(),
            claim.groups(),
            claim.memoryBytes(),
            options.claimDirectory(claim.namespace(), claim.name()));
    ClaimServer server =
        ClaimServer.start(
            spec,
            backend,
            new ClaimServer.Settings(
                options.sharedDataBytes(), options.maxSessionsPerClaim(), options.maxFrameBytes()),
            token -> tokens.accepts(claim.namespace(), claim.name(), token),
            recovery);
    served.put(claim.key(), server);
    LOG.log(
        System.Logger.Level.INFO,
        "claim {0} served on {1}: groups {2} ({3} SMs) at {4}",
        claim.key(),
        claim.gpuUuid(),
        claim.groups(),
        server.runtime().sms(),
        server.socketPath());
  }

  private static long resize(ClaimServer server, BoundClaim claim) throws GpuException {
    try {
      return server.runtime().resize(claim.groups(), claim.memoryBytes()).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof GpuException g) {
        throw g;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Stops serving a claim: ends its sessions, destroys its green context, removes its socket. */
  public synchronized void release(String namespace, String claim) {
    ClaimServer server = served.remove(namespace + "/" + claim);
    if (server != null) {
      server.close();
      LOG.log(System.Logger.Level.INFO, "claim {0}/{1} released", namespace, claim);
    }
  }

  /** Claims that are no longer bound here (deleted while the agent was down, for example). */
  public synchronized void releaseAllExcept(java.util.Set<String> keys) {
    for (ClaimServer server : List.copyOf(served.values())) {
      if (!keys.contains(server.spec().key())) {
        release(server.spec().namespace(), server.spec().name());
      }
    }
  }

  /** Forgets a deleted claim's tokens. */
  public void forgetTokens(String namespace, String claim) {
    tokens.forget(namespace, claim);
  }

  @Override
  public synchronized Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim))
        .map(s -> new ClaimEndpoint(namespace, claim, s.spec().directory(), s.socketPath()));
  }

  @Override
  public String issueToken(String namespace, String claim, String podUid, String container) {
    try {
      return tokens.issue(namespace, claim, podUid, container);
    } catch (UncheckedIOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The served claim's executor, for status and measurements. */
  public synchronized Optional<ClaimRuntime> runtime(String namespace, String claim) {
    return Optional.ofNullable(served.get(namespace + "/" + claim)).map(ClaimServer::runtime);
  }

  private synchronized List<ClaimRuntime> claimsOn(String gpuUuid) {
    List<ClaimRuntime> runtimes = new ArrayList<>();
    for (ClaimServer server : served.values()) {
      if (server.spec().gpuUuid().equals(gpuUuid)) {
        runtimes.add(server.runtime());
      }
    }
    return runtimes;
  }

  /** Prometheus text of every served claim's metrics. */
  public synchronized String renderMetrics() {
    List<ClaimSample> samples = new ArrayList<>();
    for (ClaimServer server : served.values()) {
      ClaimRuntime runtime = server.runtime();
      samples.add(
          new ClaimSample(
              server.spec().namespace(),
              server.spec().name(),
              server.spec().gpuUuid(),
              options.runMode().configName(),
              runtime.sms(),
              runtime.memoryUsed(),
              runtime.memoryQuota(),
              runtime.sessions(),
              runtime.metrics()));
    }
    return MetricsText.render(backend.backendName(), backend.simulated(), samples);
  }

  @Override
  public void close() {
    if (watcher != null) {
      watcher.close();
    }
    synchronized (this) {
      for (ClaimServer server : served.values()) {
        server.close();
      }
      served.clear();
    }
    recovery.close();
  }
}
