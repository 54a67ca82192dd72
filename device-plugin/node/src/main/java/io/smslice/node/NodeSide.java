package io.smslice.node;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.ClaimAccess;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.gpu.GpuInventory;
import io.smslice.node.allocation.AllocationLedger;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.ClaimStates;
import io.smslice.node.config.Allocation;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.config.Transparent;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.discovery.GpuDiscovery;
import io.smslice.node.discovery.NodeGpus;
import io.smslice.node.dra.claims.ResourceClaimApi;
import io.smslice.node.dra.claims.ResourceClaimTargets;
import io.smslice.node.events.ClientFaultEvents;
import io.smslice.node.events.GuardCapCutEvents;
import io.smslice.node.events.SliceClaimTargets;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.metrics.TransparentMetrics;
import io.smslice.node.mps.ClientFaultRecovery;
import io.smslice.node.mps.MpsControlVersion;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.plugin.PluginLifecycle;
import io.smslice.node.plugin.ResourceManager;
import io.smslice.node.publish.NodeLabels;
import io.smslice.node.publish.ServedClaims;
import io.smslice.node.publish.SliceNodePublisher;
import io.smslice.node.resources.GreenSmResources;
import io.smslice.node.resources.MigResources;
import io.smslice.node.resources.MpsResources;
import io.smslice.node.resources.ServedGpus;
import io.smslice.node.transparent.InterposerInstall;
import io.smslice.node.transparent.SharedMemory;
import io.smslice.node.transparent.TransparentTenants;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The kubelet-facing half of the node side, assembled: discovery, health, MPS daemons, SliceNode
 * publishing and one device-plugin server per resource that this node's GPUs offer.
 */
public final class NodeSide implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NodeSide.class.getName());

  /**
   * Timings; tests shorten them.
   *
   * @param faultRecovery how long MPS clients that saw another client's fault may take to exit
   *     before the GPU's MPS daemon is restarted
   * @param claimPoll how often the claims' serving state is compared with the published one
   */
  public record Timings(
      Duration healthPoll,
      Duration xidQuietPeriod,
      Duration registrationRetry,
      Duration waitForPod,
      Duration waitForAgent,
      Duration faultRecovery,
      Duration claimPoll) {
    public static final Timings PRODUCTION =
        new Timings(
            Duration.ofSeconds(10),
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofSeconds(2));

    /** With the production fault-recovery and claim-poll timings. */
    public Timings(
        Duration healthPoll,
        Duration xidQuietPeriod,
        Duration registrationRetry,
        Duration waitForPod,
        Duration waitForAgent) {
      this(
          healthPoll,
          xidQuietPeriod,
          registrationRetry,
          waitForPod,
          waitForAgent,
          PRODUCTION.faultRecovery(),
          PRODUCTION.claimPoll());
    }
  }

  private final List<DiscoveredGpu> gpus;
  private final GpuHealthMonitor health;
  private final MpsDaemonManager mps;
  private final SliceNodePublisher publisher;
  private final PluginLifecycle plugins;
  private final ClientFaultRecovery faults;
  private final ScheduledExecutorService claimWatch;
  private final NodeLabels labels;
  private final Optional<TransparentTenants> transparent;

  private NodeSide(
      List<DiscoveredGpu> gpus,
      GpuHealthMonitor health,
      MpsDaemonManager mps,
      SliceNodePublisher publisher,
      PluginLifecycle plugins,
      ClientFaultRecovery faults,
      ScheduledExecutorService claimWatch,
      NodeLabels labels,
      Optional<TransparentTenants> transparent) {
    this.gpus = gpus;
    this.health = health;
    this.mps = mps;
    this.publisher = publisher;
    this.plugins = plugins;
    this.faults = faults;
    this.claimWatch = claimWatch;
    this.labels = labels;
    this.transparent = transparent;
  }

  /** Without the agent's claim states (the SliceNode then lists no claims). */
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
    return start(
        config,
        nodeName,
        client,
        cluster,
        inventory,
        nvml,
        agent,
        ClaimStates.NONE,
        ClientFaultRecovery.Workers.NONE,
        mps,
        metrics,
        timings);
  }

  /**
   * Starts everything. The caller keeps ownership of the client, inventory, NVML and agent. The MPS
   * daemon manager is the one the agent also uses (one manager per node: two would start two
   * daemons on one pipe directory); the node side starts the daemons its GPUs need and stops them
   * on {@link #close()}.
   *
   * @param cluster where Allocate looks up pods and claims
   * @param claims how the agent serves this node's claims (published in the SliceNode)
   * @param workers the agent's worker processes, stopped on a client fault on their GPU and started
   *     again once it takes new clients
   */
  public static NodeSide start(
      NodeConfig config,
      String nodeName,
      KubernetesClient client,
      ClusterView cluster,
      GpuInventory inventory,
      Nvml nvml,
      ClaimAccess agent,
      ClaimStates claims,
      ClientFaultRecovery.Workers workers,
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
    // What started stops again if a later part fails, last first: the caller gets nothing to close.
    Deque<Runnable> started = new ArrayDeque<>();
    try {
      GpuHealthMonitor health =
          new GpuHealthMonitor(
              nvml, timings.healthPoll(), timings.xidQuietPeriod(), Clock.systemUTC());
      started.push(health::close);
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

      started.push(mps::close);
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
                          g -> "gpu=\"" + g.uuid() + "\"",
                          g -> mps.running(g.uuid()) ? 1.0 : 0.0)));

      Set<String> mpsGpus =
          gpus.stream()
              .filter(g -> config.needsMps(g.mode()))
              .map(DiscoveredGpu::uuid)
              .collect(Collectors.toSet());
      Optional<Integer> mpsVersion = mpsGpus.isEmpty() ? Optional.empty() : mps.controlVersion();
      mpsVersion.ifPresent(v -> LOG.info("MPS control version " + v));
      SliceNodePublisher publisher =
          new SliceNodePublisher(
              client,
              nodeName,
              NodeMain.version(),
              inventory.backendName(),
              () -> apiGpus(gpus, health, mpsGpus, mpsVersion),
              () -> ServedClaims.toApi(claims.claims()),
              config.heartbeat(),
              metrics,
              Clock.systemUTC());
      health.addListener(conditions -> publisher.publishSoon());
      started.push(publisher::close);
      publisher.start();
      NodeLabels labels =
          new NodeLabels(
              client, nodeName, gpus, claims::claims, uuid -> health.condition(uuid).healthy());
      health.addListener(conditions -> labels.updateSoon());
      started.push(labels::close);
      labels.start(config.heartbeat());
      ScheduledExecutorService claimWatch =
          watchClaims(
              claims,
              () -> {
                publisher.publishSoon();
                labels.updateSoon();
              },
              timings.claimPoll());
      started.push(claimWatch::shutdownNow);
      TransparentMetrics.register(metrics, claims, nvml);
      GuardCapCutEvents capCuts =
          new GuardCapCutEvents(
              client,
              nodeName,
              config.allocation() == Allocation.DRA
                  ? new ResourceClaimTargets(
                      new ResourceClaimApi(client, nodeName), cluster, nodeName)
                  : new SliceClaimTargets(cluster, nodeName),
              claims::guardCapCuts,
              Clock.systemUTC(),
              GuardCapCutEvents.INTERVAL);
      claimWatch.scheduleWithFixedDelay(
          capCuts::check,
          timings.claimPoll().toMillis(),
          timings.claimPoll().toMillis(),
          TimeUnit.MILLISECONDS);

      ClientFaultRecovery faults =
          ClientFaultRecovery.watching(
              health,
              mpsGpus::contains,
              nvml,
              config.paths().proc(),
              mps,
              new ClientFaultEvents(client, nodeName, cluster, claims),
              workers,
              metrics,
              timings.faultRecovery());
      started.push(faults::close);

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
      Optional<TransparentTenants> transparent =
          modes.containsKey(GpuMode.Green) ? transparentTenants(config, mps) : Optional.empty();
      // With DRA the kube-scheduler allocates green SMs from the ResourceSlice (DraNode).
      if (modes.containsKey(GpuMode.Green) && config.allocation() == Allocation.DEVICE_PLUGIN) {
        managers.add(
            new GreenSmResources(
                config.resourceNames().sm(),
                served,
                resolver,
                agent,
                timings.waitForAgent(),
                transparent,
                config.paths().dev(),
                config.paths().proc()));
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
      started.push(plugins::close);
      plugins.start();
      return new NodeSide(
          gpus, health, mps, publisher, plugins, faults, claimWatch, labels, transparent);
    } catch (IOException | RuntimeException e) {
      for (Runnable stop : started) {
        try {
          stop.run();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /** Installs the interposer on the host when transparent slices are on. */
  private static Optional<TransparentTenants> transparentTenants(
      NodeConfig config, MpsDaemonManager mps) {
    Transparent t = config.transparent();
    if (!t.enabled()) {
      return Optional.empty();
    }
    InterposerInstall install = InterposerInstall.install(t.library(), t.installDirectory());
    SharedMemory.check(t.mpsShm());
    return Optional.of(new TransparentTenants(install, mps, t.mpsShm()));
  }

  /**
   * Publishes the SliceNode and the Node's labels at once when a claim's serving state or attached
   * processes change.
   */
  private static ScheduledExecutorService watchClaims(
      ClaimStates claims, Runnable onChange, Duration every) {
    ScheduledExecutorService watch =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("claim-state-watch").factory());
    AtomicReference<List<ClaimState>> last = new AtomicReference<>(List.of());
    watch.scheduleWithFixedDelay(
        () -> {
          try {
            List<ClaimState> now = claims.claims();
            if (!now.equals(last.getAndSet(now))) {
              onChange.run();
            }
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading the claims' serving state failed", e);
          }
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
    return watch;
  }

  private static List<NodeGpu> apiGpus(
      List<DiscoveredGpu> gpus,
      GpuHealthMonitor health,
      Set<String> mpsGpus,
      Optional<Integer> mpsVersion) {
    return gpus.stream()
        .map(
            g -> {
              NodeGpu api = NodeGpus.toApi(g, health.condition(g.uuid()));
              if (mpsGpus.contains(g.uuid()) && mpsVersion.isPresent()) {
                api.setMpsControlVersion(mpsVersion.get());
                api.setMpsStaticPartitioning(
                    MpsControlVersion.staticPartitioning(mpsVersion.get()));
              }
              return api;
            })
        .toList();
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

  public ClientFaultRecovery faults() {
    return faults;
  }

  /** What transparent green claims get (the interposer installed), when the node has them. */
  public Optional<TransparentTenants> transparent() {
    return transparent;
  }

  @Override
  public void close() {
    plugins.close();
    claimWatch.shutdownNow();
    labels.close();
    faults.close();
    publisher.close();
    health.close();
    mps.close();
  }
}
