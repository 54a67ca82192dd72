package io.smslice.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.ClaimAccess;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.gpu.GpuInventory;
import io.smslice.node.allocation.AllocationLedger;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.discovery.GpuDiscovery;
import io.smslice.node.discovery.NodeGpus;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.plugin.PluginLifecycle;
import io.smslice.node.plugin.ResourceManager;
import io.smslice.node.publish.SliceNodePublisher;
import io.smslice.node.resources.GreenSmResources;
import io.smslice.node.resources.MigResources;
import io.smslice.node.resources.MpsResources;
import io.smslice.node.resources.ServedGpus;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The kubelet-facing half of the node side, assembled: discovery, health, MPS daemons, SliceNode
 * publishing and one device-plugin server per resource that this node's GPUs offer.
 */
public final class NodeSide implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NodeSide.class.getName());

  /** Timings; tests shorten them. */
  public record Timings(
      Duration healthPoll,
      Duration xidQuietPeriod,
      Duration registrationRetry,
      Duration waitForPod,
      Duration waitForAgent) {
    public static final Timings PRODUCTION =
        new Timings(
            Duration.ofSeconds(10),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10));
  }

  private final List<DiscoveredGpu> gpus;
  private final GpuHealthMonitor health;
  private final MpsDaemonManager mps;
  private final SliceNodePublisher publisher;
  private final PluginLifecycle plugins;

  private NodeSide(
      List<DiscoveredGpu> gpus,
      GpuHealthMonitor health,
      MpsDaemonManager mps,
      SliceNodePublisher publisher,
      PluginLifecycle plugins) {
    this.gpus = gpus;
    this.health = health;
    this.mps = mps;
    this.publisher = publisher;
    this.plugins = plugins;
  }

  /**
   * Starts everything. The caller keeps ownership of the client, inventory, NVML and agent. The MPS
   * daemon manager is the one the agent also uses (one manager per node: two would start two
   * daemons on one pipe directory); the node side starts the daemons its GPUs need and stops them
   * on {@link #close()}.
   *
   * @param cluster where Allocate looks up pods and claims
   */
  public static NodeSide start(
      NodeConfig config,
      String nodeName,
      KubernetesClient client,
      ClusterView cluster,
      GpuInventory inventory,
      Nvml nvml,
      ClaimAccess agent,
      MpsDaemonManager mps,
      NodeMetrics metrics,
      Timings timings)
      throws IOException {
    List<DiscoveredGpu> gpus = GpuDiscovery.discover(inventory, nvml, config);
    gpus.forEach(
        g ->
            LOG.info(
                "GPU "
                    + g.index()
                    + " "
                    + g.uuid()
                    + " "
                    + g.product()
                    + ": mode "
                    + g.mode()
                    + ", "
                    + g.smCount()
                    + " SMs, split "
                    + g.split()
                    + ", MIG devices "
                    + g.migDevices()));
    GpuHealthMonitor health =
        new GpuHealthMonitor(
            nvml, timings.healthPoll(), timings.xidQuietPeriod(), Clock.systemUTC());
    health.start(gpus.stream().map(DiscoveredGpu::uuid).toList());
    metrics.gauge(
        "smslice_node_gpu_healthy",
        "1 when the GPU may take work, 0 when it is unhealthy.",
        () ->
            gpus.stream()
                .collect(
                    Collectors.toMap(
                        g -> "gpu=\"" + g.uuid() + "\",mode=\"" + g.mode() + "\"",
                        g -> health.condition(g.uuid()).healthy() ? 1.0 : 0.0)));

    for (DiscoveredGpu g : gpus) {
      if (config.needsMps(g.mode())) {
        try {
          mps.start(g.uuid());
        } catch (IOException e) {
          LOG.log(
              Level.SEVERE,
              "cannot start the MPS control daemon for "
                  + g.uuid()
                  + " ("
                  + e.getMessage()
                  + "): install nvidia-cuda-mps-control on the node image or set mps.controlCommand",
              e);
        }
      }
    }
    metrics.gauge(
        "smslice_node_mps_daemon_up",
        "1 when the GPU's MPS control daemon runs.",
        () ->
            gpus.stream()
                .filter(g -> config.needsMps(g.mode()))
                .collect(
                    Collectors.toMap(
                        g -> "gpu=\"" + g.uuid() + "\"", g -> mps.running(g.uuid()) ? 1.0 : 0.0)));

    SliceNodePublisher publisher =
        new SliceNodePublisher(
            client,
            nodeName,
            NodeMain.version(),
            inventory.backendName(),
            () -> apiGpus(gpus, health),
            config.heartbeat(),
            metrics,
            Clock.systemUTC());
    health.addListener(conditions -> publisher.publishSoon());
    publisher.start();

    AllocationResolver resolver =
        new AllocationResolver(
            nodeName,
            cluster,
            new AllocationLedger(config.paths().state().resolve("allocations.json")),
            timings.waitForPod(),
            Duration.ofMillis(200));
    ServedGpus served = new ServedGpus(gpus, health);
    List<ResourceManager> managers = new ArrayList<>();
    Map<GpuMode, Long> modes =
        gpus.stream().collect(Collectors.groupingBy(DiscoveredGpu::mode, Collectors.counting()));
    if (modes.containsKey(GpuMode.Green)) {
      managers.add(
          new GreenSmResources(
              config.resourceNames().sm(), served, resolver, agent, timings.waitForAgent()));
    }
    if (modes.containsKey(GpuMode.MIG)) {
      managers.add(
          new MigResources(
              config.resourceNames().mig(),
              served,
              resolver,
              config.paths().dev(),
              config.paths().proc()));
    }
    if (modes.containsKey(GpuMode.MPS)) {
      managers.add(
          new MpsResources(
              config.resourceNames().mps(),
              served,
              resolver,
              mps,
              config.paths().dev(),
              config.paths().proc()));
    }
    PluginLifecycle plugins =
        new PluginLifecycle(
            config.paths().devicePlugins(), managers, timings.registrationRetry(), metrics);
    plugins.start();
    return new NodeSide(gpus, health, mps, publisher, plugins);
  }

  private static List<NodeGpu> apiGpus(List<DiscoveredGpu> gpus, GpuHealthMonitor health) {
    return gpus.stream().map(g -> NodeGpus.toApi(g, health.condition(g.uuid()))).toList();
  }

  public List<DiscoveredGpu> gpus() {
    return gpus;
  }

  public GpuHealthMonitor health() {
    return health;
  }

  public MpsDaemonManager mps() {
    return mps;
  }

  public SliceNodePublisher publisher() {
    return publisher;
  }

  public PluginLifecycle plugins() {
    return plugins;
  }

  @Override
  public void close() {
    plugins.close();
    publisher.close();
    health.close();
    mps.close();
  }
}
