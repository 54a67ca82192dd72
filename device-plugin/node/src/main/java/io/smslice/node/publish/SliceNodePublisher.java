package io.smslice.node.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.api.v1alpha1.node.SliceNodeStatus;
import io.smslice.node.metrics.NodeMetrics;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps this node's SliceNode current: creates it (owned by the Node, so it goes when the node
 * goes), then writes its status with the GPUs, how each bound claim is served, and a heartbeat
 * every interval and at once when asked (a health change). Writes happen on one thread, so a burst
 * of changes costs few writes.
 */
public final class SliceNodePublisher implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SliceNodePublisher.class.getName());

  private final KubernetesClient client;
  private final String nodeName;
  private final String agentVersion;
  private final String backend;
  private final Supplier<List<NodeGpu>> gpus;
  private final Supplier<List<ServedClaim>> claims;
  private final Duration heartbeat;
  private final NodeMetrics metrics;
  private final Clock clock;
  private final ScheduledExecutorService writer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("slicenode-publisher").unstarted(r));

  public SliceNodePublisher(
      KubernetesClient client,
      String nodeName,
      String agentVersion,
      String backend,
      Supplier<List<NodeGpu>> gpus,
      Supplier<List<ServedClaim>> claims,
      Duration heartbeat,
      NodeMetrics metrics,
      Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.agentVersion = agentVersion;
    this.backend = backend;
    this.gpus = gpus;
    this.claims = claims;
    this.heartbeat = heartbeat;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Publishes now, then every heartbeat interval. */
  public void start() {
    long every = heartbeat.toMillis();
    writer.scheduleWithFixedDelay(this::publishQuietly, 0, every, TimeUnit.MILLISECONDS);
  }

  /** Publishes soon, on the writer thread; for callers that must not block (health listeners). */
  public void publishSoon() {
    writer.execute(this::publishQuietly);
  }

  private void publishQuietly() {
    try {
      publish();
    } catch (RuntimeException e) {
      metrics.sliceNodeUpdate("error");
      LOG.log(
          Level.WARNING,
          "writing SliceNode " + nodeName + " failed; next try in " + heartbeat.toSeconds() + " s",
          e);
    }
  }

  /** Creates the SliceNode if needed and writes its status; returns what the server stored. */
  public synchronized SliceNode publish() {
    for (int attempt = 1; ; attempt++) {
      SliceNode current = client.resources(SliceNode.class).withName(nodeName).get();
      if (current == null) {
        current = client.resource(fresh()).create();
      }
      current.setStatus(status());
      try {
        SliceNode written = client.resource(current).updateStatus();
        metrics.sliceNodeUpdate("ok");
        return written;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt >= 3) {
          throw e;
        }
      }
    }
  }

  private SliceNode fresh() {
    SliceNode sn = new SliceNode();
    sn.getMetadata().setName(nodeName);
    Node node = client.nodes().withName(nodeName).get();
    if (node != null) {
      sn.getMetadata()
          .setOwnerReferences(
              List.of(
                  new OwnerReferenceBuilder()
                      .withApiVersion("v1")
                      .withKind("Node")
                      .withName(nodeName)
                      .withUid(node.getMetadata().getUid())
                      .build()));
    }
    return sn;
  }

  private SliceNodeStatus status() {
    SliceNodeStatus s = new SliceNodeStatus();
    s.setGpus(gpus.get());
    s.setClaims(claims.get());
    s.setAgentVersion(agentVersion);
    s.setBackend(backend);
    s.setHeartbeat(
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS)));
    return s;
  }

  @Override
  public void close() {
    writer.shutdownNow();
  }
}
