package io.smslice.node.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.dra.cdi.CdiSpecFiles;
import io.smslice.node.dra.claims.ResourceClaimApi;
import io.smslice.node.dra.claims.ResourceClaimReader;
import io.smslice.node.dra.kubelet.DeviceCondition;
import io.smslice.node.dra.kubelet.DraKubeletPlugin;
import io.smslice.node.dra.prepare.Checkpoint;
import io.smslice.node.dra.prepare.ClaimHandout;
import io.smslice.node.dra.prepare.ClaimPreparer;
import io.smslice.node.dra.prepare.PreparedClaim;
import io.smslice.node.dra.prepare.SliceAgent;
import io.smslice.node.dra.slices.NodeResourceSlice;
import io.smslice.node.dra.slices.ResourceSlicePublisher;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.health.GpuHealthMonitor;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.resources.DeviceNodes;
import io.smslice.node.transparent.TransparentTenants;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The DRA side of a node (allocation: dra): this node's ResourceSlice and the DRA kubelet plugin
 * that prepares the claims the scheduler allocated on it, served by the agent. Checkpointed claims
 * are served again before the kubelet can call.
 */
public final class DraNode implements AutoCloseable {
  /** The checkpoint's file in the node's state directory. */
  public static final String CHECKPOINT = "dra-checkpoint.json";

  private final ClaimPreparer preparer;
  private final DraKubeletPlugin plugin;
  private final ResourceSlicePublisher publisher;

  private DraNode(
      ClaimPreparer preparer, DraKubeletPlugin plugin, ResourceSlicePublisher publisher) {
    this.preparer = preparer;
    this.plugin = plugin;
    this.publisher = publisher;
  }

  /**
   * @param mpsUp whether a GPU's MPS daemon runs (with transparent on: unmodified programs can run)
   * @param socketCheck how often the plugin's sockets are checked
   */
  public static DraNode start(
      NodeConfig config,
      String nodeName,
      KubernetesClient client,
      List<DiscoveredGpu> discovered,
      GpuHealthMonitor health,
      Predicate<String> mpsUp,
      SliceAgent agent,
      Optional<TransparentTenants> transparent,
      NodeMetrics metrics,
      Duration socketCheck)
      throws IOException {
    List<DraGpu> gpus = discovered.stream().flatMap(g -> DraGpu.of(g).stream()).toList();
    Checkpoint checkpoint = Checkpoint.open(config.paths().state().resolve(CHECKPOINT));
    ClaimPreparer preparer =
        new ClaimPreparer(
            new ResourceClaimApi(client, nodeName),
            new ResourceClaimReader(nodeName),
            gpus,
            health::condition,
            agent,
            checkpoint,
            new CdiSpecFiles(config.paths().cdi()),
            new ClaimHandout(
                agent, transparent, new DeviceNodes(config.paths().dev(), config.paths().proc())),
            metrics);
    preparer.restore();
    metrics.gauge(
        "smslice_node_dra_prepared_claims",
        "ResourceClaims this node has prepared (DRA), by GPU.",
        () -> perGpu(gpus, preparer, p -> 1L));
    metrics.gauge(
        "smslice_node_dra_prepared_sms",
        "SMs of the ResourceClaims this node has prepared (DRA), by GPU.",
        () -> perGpu(gpus, preparer, PreparedClaim::sms));
    metrics.gauge(
        "smslice_node_dra_prepared_memory_bytes",
        "GPU memory of the ResourceClaims this node has prepared (DRA), by GPU.",
        () -> perGpu(gpus, preparer, PreparedClaim::memoryBytes));
    metrics.gauge(
        "smslice_node_dra_gpu_sms",
        "SMs each GPU offers DRA in its ResourceSlice.",
        () ->
            gpus.stream()
                .collect(
                    Collectors.toMap(g -> "gpu=\"" + g.uuid() + "\"", g -> (double) g.smCount())));
    boolean transparentOn = config.transparent().enabled();
    ResourceSlicePublisher publisher =
        new ResourceSlicePublisher(
            client,
            nodeName,
            () ->
                gpus.stream()
                    .map(
                        g ->
                            new NodeResourceSlice.GpuState(
                                g,
                                health.condition(g.uuid()),
                                transparentOn && mpsUp.test(g.uuid())))
                    .toList(),
            config.heartbeat(),
            metrics);
    DraKubeletPlugin plugin =
        new DraKubeletPlugin(
            config.paths().kubeletPlugins(),
            config.paths().pluginsRegistry(),
            preparer,
            () ->
                gpus.stream()
                    .map(
                        g -> {
                          GpuCondition c = health.condition(g.uuid());
                          return new DeviceCondition(
                              nodeName, g.deviceName(), c.healthy(), c.reason());
                        })
                    .toList(),
            metrics,
            socketCheck);
    try {
      plugin.start();
    } catch (IOException | RuntimeException e) {
      plugin.close();
      throw e;
    }
    publisher.start();
    health.addListener(
        conditions -> {
          publisher.publishSoon();
          plugin.healthChanged();
        });
    return new DraNode(preparer, plugin, publisher);
  }

  /** {@code value} summed over each GPU's prepared claims; every served GPU appears, 0 if none. */
  private static Map<String, Double> perGpu(
      List<DraGpu> gpus, ClaimPreparer preparer, ToLongFunction<PreparedClaim> value) {
    Map<String, Long> sums =
        preparer.prepared().stream()
            .collect(Collectors.groupingBy(PreparedClaim::gpuUuid, Collectors.summingLong(value)));
    return gpus.stream()
        .map(DraGpu::uuid)
        .distinct()
        .collect(
            Collectors.toMap(u -> "gpu=\"" + u + "\"", u -> (double) sums.getOrDefault(u, 0L)));
  }

  public ClaimPreparer preparer() {
    return preparer;
  }

  public DraKubeletPlugin plugin() {
    return plugin;
  }

  public ResourceSlicePublisher publisher() {
    return publisher;
  }

  /** Stops serving the kubelet; the prepared claims stay served by the agent until it stops. */
  @Override
  public void close() {
    plugin.close();
    publisher.close();
  }
}
