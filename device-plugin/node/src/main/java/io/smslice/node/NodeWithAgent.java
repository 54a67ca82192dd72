package io.smslice.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.agent.ClaimStatus;
import io.smslice.agent.RunMode;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.node.allocation.KubernetesClusterView;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.ClaimStates;
import io.smslice.node.claims.TenantProcess;
import io.smslice.node.config.Allocation;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.dra.DraNode;
import io.smslice.node.dra.prepare.SliceAgent;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.ClientFaultRecovery;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.transparent.GuardPressure;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The node side and the agent in one process (docs/node.md says why), sharing the GPU backend, the
 * MPS daemons and the metrics. The caller owns the backend, NVML and the client.
 */
public record NodeWithAgent(
    NodeMetrics metrics,
    MpsDaemonManager mps,
    Agent agent,
    NodeSide side,
    Optional<DraNode> dra,
    Optional<GuardPressure> guardPressure)
    implements AutoCloseable {

  public static NodeWithAgent start(
      NodeConfig config, String nodeName, KubernetesClient client, GpuBackend backend, Nvml nvml)
      throws IOException {
    NodeMetrics metrics = new NodeMetrics();
    MpsDaemonManager mps =
        new MpsDaemonManager(config.mpsControlCommand(), config.paths()::mpsDirectory, metrics);
    AgentOptions options =
        AgentOptions.of(
            nodeName,
            config.paths().run(),
            config.paths().state(),
            RunMode.fromConfig(config.runMode().configName()));
    boolean dra = config.allocation() == Allocation.DRA;
    // With DRA the agent serves what NodePrepareResources asks for, not SliceClaim bindings: its
    // claim watcher would release a prepared claim whose SliceClaim of the same name is unbound.
    Agent agent = Agent.start(options, dra ? null : client, backend, mps);
    Optional<GuardPressure> pressure = Optional.empty();
    NodeSide side = null;
    try {
      if (config.transparent().enabled()) {
        // Tenants see the MPS daemons' tmpfs as their /dev/shm: the guard's files live there.
        agent.useGuard(config.transparent().mpsShm(), config.transparent().guard());
        if (config.transparent().gating().onlyUnderPressure()) {
          pressure = Optional.of(gateOnPressure(config, backend, nvml, agent, metrics));
        }
      }
      metrics.include(agent::renderMetrics);
      side =
          NodeSide.start(
              config,
              nodeName,
              client,
              new KubernetesClusterView(client),
              backend,
              nvml,
              agent,
              claimStatesOf(agent),
              workers(agent),
              mps,
              metrics,
              NodeSide.Timings.PRODUCTION);
      Optional<DraNode> draNode =
          dra
              ? Optional.of(
                  DraNode.start(
                      config,
                      nodeName,
                      client,
                      side.gpus(),
                      side.health(),
                      mps::running,
                      sliceAgent(agent),
                      side.transparent(),
                      metrics,
                      NodeSide.Timings.PRODUCTION.registrationRetry()))
              : Optional.empty();
      return new NodeWithAgent(metrics, mps, agent, side, draNode, pressure);
    } catch (IOException | RuntimeException e) {
      // What started stops again, in close()'s order: the caller gets nothing to close.
      pressure.ifPresent(GuardPressure::close);
      if (side != null) {
        side.close();
      }
      agent.close();
      mps.close();
      throw e;
    }
  }

  /** The guard only while NVML shows pressure, sampled every second. */
  private static GuardPressure gateOnPressure(
      NodeConfig config, GpuBackend backend, Nvml nvml, Agent agent, NodeMetrics metrics) {
    GuardPressure pressure =
        new GuardPressure(nvml, config.transparent().gating(), System::nanoTime);
    List<String> gpus = backend.devices().stream().map(GpuDevice::uuid).toList();
    agent.gateGuard(pressure);
    pressure.start(gpus, Duration.ofSeconds(1), agent::refreshGuards);
    metrics.gauge(
        "smslice_node_guard_pressure",
        "1 while NVML shows the GPU under power or bandwidth pressure, so its interference guard"
            + " may be on (transparent.guard.onlyUnderPressure), else 0.",
        () ->
            gpus.stream()
                .collect(
                    Collectors.toMap(g -> "gpu=\"" + g + "\"", g -> pressure.test(g) ? 1.0 : 0.0)));
    return pressure;
  }

  /** The agent as the DRA driver uses it. */
  public static SliceAgent sliceAgent(Agent agent) {
    return new AgentAsSliceAgent(agent);
  }

  /** The agent as the DRA driver uses it; open so that tests can wrap a call (SlowClaimTest). */
  public static class AgentAsSliceAgent implements SliceAgent {
    private final Agent agent;

    public AgentAsSliceAgent(Agent agent) {
      this.agent = agent;
    }

    @Override
    public void serve(BoundClaim claim) throws Exception {
      agent.serve(claim);
    }

    @Override
    public void release(String namespace, String claim) {
      agent.release(namespace, claim);
    }

    @Override
    public void forgetTokens(String namespace, String claim) {
      agent.forgetTokens(namespace, claim);
    }

    @Override
    public List<ClaimStatus> claimStatuses() {
      return agent.claimStatuses();
    }

    @Override
    public Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
      return agent.endpoint(namespace, claim);
    }

    @Override
    public String issueToken(String namespace, String claim, String podUid, String container) {
      return agent.issueToken(namespace, claim, podUid, container);
    }

    @Override
    public Path tenantEnvironment(
        String namespace, String claim, String podUid, String container, Map<String, String> env) {
      return agent.tenantEnvironment(namespace, claim, podUid, container, env);
    }
  }

  /** The agent's workers, as the node's client-fault recovery stops and starts them. */
  public static ClientFaultRecovery.Workers workers(Agent agent) {
    return new ClientFaultRecovery.Workers() {
      @Override
      public void stop(String gpuUuid) {
        agent.stopWorkers(gpuUuid);
      }

      @Override
      public void start(String gpuUuid) {
        agent.startWorkers(gpuUuid);
      }
    };
  }

  /** The agent's claims and their guard's cap cuts, as the node side reads them. */
  public static ClaimStates claimStatesOf(Agent agent) {
    return new ClaimStates() {
      @Override
      public List<ClaimState> claims() {
        return claimStates(agent);
      }

      @Override
      public Map<String, Long> guardCapCuts() {
        return agent.guardCapCuts();
      }
    };
  }

  /**
   * The agent's claims as the node publishes them, each with the unmodified processes attached to
   * it (the agent's registry of open ATTACH connections).
   */
  public static List<ClaimState> claimStates(Agent agent) {
    return agent.claimStatuses().stream()
        .map(
            s ->
                new ClaimState(
                    s.namespace(),
                    s.name(),
                    s.gpuUuid(),
                    s.groups(),
                    s.serving(),
                    s.message(),
                    agent.transparentProcesses(s.namespace() + "/" + s.name()).stream()
                        .map(p -> new TenantProcess(p.hostPid(), p.container(), p.command()))
                        .toList()))
        .toList();
  }

  /** Stops the plugins first, then the agent and its workers, then the MPS daemons they used. */
  @Override
  public void close() {
    guardPressure.ifPresent(GuardPressure::close);
    dra.ifPresent(DraNode::close);
    side.close();
    agent.close();
    mps.close();
  }
}
