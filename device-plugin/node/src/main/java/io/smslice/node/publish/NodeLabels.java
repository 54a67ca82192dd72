package io.smslice.node.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.SplitGroup;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.discovery.DiscoveredGpu;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Labels this node's own Node with its smslice mode, its GPU count and the SMs its green-mode GPUs
 * have free (an unhealthy GPU has none, as the operator counts it), so `kubectl get nodes -L` and
 * node selectors see them. Only the labels under {@value #PREFIX} that this class owns are written,
 * with a JSON merge patch, and only when a value differs from what the Node carries; the chart's
 * admission policy lets the node change nothing else. Every value is a valid label value: a
 * lower-case word or a decimal number.
 */
public final class NodeLabels implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(NodeLabels.class.getName());

  public static final String PREFIX = "smslice.io/";
  public static final String MODE = PREFIX + "mode";
  public static final String FREE_SMS = PREFIX + "free-sms";
  public static final String GPUS = PREFIX + "gpus";

  private final KubernetesClient client;
  private final String nodeName;
  private final List<DiscoveredGpu> gpus;
  private final Supplier<List<ClaimState>> claims;
  private final Predicate<String> healthy;
  private final ScheduledExecutorService writer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("node-labels").unstarted(r));

  public NodeLabels(
      KubernetesClient client,
      String nodeName,
      List<DiscoveredGpu> gpus,
      Supplier<List<ClaimState>> claims,
      Predicate<String> healthy) {
    this.client = client;
    this.nodeName = nodeName;
    this.gpus = List.copyOf(gpus);
    this.claims = claims;
    this.healthy = healthy;
  }

  /** Updates now, then every interval (the SliceNode heartbeat), on its own thread. */
  public void start(Duration every) {
    writer.scheduleWithFixedDelay(this::updateQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Updates soon, on the writer thread; for callers that must not block (a claim change). */
  public void updateSoon() {
    writer.execute(this::updateQuietly);
  }

  private void updateQuietly() {
    try {
      update();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "labelling Node " + nodeName + " failed; tried again later", e);
    }
  }

  /** The labels this node should carry now. */
  public Map<String, String> wanted() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(MODE, mode(gpus));
    labels.put(
        FREE_SMS,
        Integer.toString(
            freeSms(gpus.stream().filter(g -> healthy.test(g.uuid())).toList(), claims.get())));
    labels.put(GPUS, Integer.toString(gpus.size()));
    return labels;
  }

  /**
   * Reads the Node and patches the labels of {@link #wanted()} that differ from its own; returns
   * whether it patched. The read is what the SliceNode heartbeat costs too, and it puts back a
   * label someone removed or changed.
   */
  public synchronized boolean update() {
    Map<String, String> want = wanted();
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IllegalStateException("Node " + nodeName + " does not exist");
    }
    Map<String, String> has =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    Map<String, String> changed = new LinkedHashMap<>();
    want.forEach(
        (k, v) -> {
          if (!v.equals(has.get(k))) {
            changed.put(k, v);
          }
        });
    if (changed.isEmpty()) {
      return false;
    }
    String patch = Serialization.asJson(Map.of("metadata", Map.of("labels", changed)));
    client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    LOG.info("Node " + nodeName + " labelled " + changed);
    return true;
  }

  @Override
  public void close() {
    writer.shutdownNow();
  }

  /** The GPUs' common mode in lower case, "mixed" when they differ, "none" without GPUs. */
  static String mode(List<DiscoveredGpu> gpus) {
    Set<GpuMode> modes = gpus.stream().map(DiscoveredGpu::mode).collect(Collectors.toSet());
    if (modes.isEmpty()) {
      return "none";
    }
    return modes.size() > 1 ? "mixed" : modes.iterator().next().name().toLowerCase(Locale.ROOT);
  }

  /** SMs of green-mode GPUs' split groups that no bound claim holds. */
  static int freeSms(List<DiscoveredGpu> gpus, List<ClaimState> claims) {
    int free = 0;
    for (DiscoveredGpu g : gpus) {
      if (g.mode() != GpuMode.Green) {
        continue;
      }
      Set<Integer> taken =
          claims.stream()
              .filter(c -> Objects.equals(c.gpuUuid(), g.uuid()))
              .flatMap(c -> c.groups().stream())
              .collect(Collectors.toSet());
      for (SplitGroup s : g.split()) {
        if (!taken.contains(s.id())) {
          free += s.sms();
        }
      }
    }
    return free;
  }
}
