package io.smslice.node.dra.slices;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.metrics.NodeMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps this node's ResourceSlice equal to what its GPUs are now: on start, when told (health
 * changed), and every period (MPS daemon state, a slice someone else changed or deleted). The pool
 * generation goes up with every change. The slice is owned by the Node, so it goes with it; on
 * shutdown it is left in place, as the kubelet removes a driver's slices itself 30 s after the
 * driver's plugin unregisters and did not come back.
 */
public final class ResourceSlicePublisher implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ResourceSlicePublisher.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final String nodeName;
  private final String sliceName;
  private final Supplier<List<NodeResourceSlice.GpuState>> gpus;
  private final Duration period;
  private final NodeMetrics metrics;
  private final ScheduledExecutorService worker =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("resourceslice-publisher").unstarted(r));

  public ResourceSlicePublisher(
      KubernetesClient client,
      String nodeName,
      Supplier<List<NodeResourceSlice.GpuState>> gpus,
      Duration period,
      NodeMetrics metrics) {
    this.client = client;
    this.nodeName = nodeName;
    this.sliceName = NodeResourceSlice.name(nodeName);
    this.gpus = gpus;
    this.period = period;
    this.metrics = metrics;
  }

  public String sliceName() {
    return sliceName;
  }

  public void start() {
    worker.scheduleWithFixedDelay(
        this::publishQuietly, 0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Publishes soon on the publisher's thread. */
  public void publishSoon() {
    try {
      worker.execute(this::publishQuietly);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  private void publishQuietly() {
    try {
      publish();
    } catch (KubernetesClientException | IllegalStateException e) {
      metrics.resourceSliceUpdate("error");
      LOG.log(Level.WARNING, "writing ResourceSlice " + sliceName + " failed; will retry", e);
    }
  }

  /** Writes the slice when it differs from the GPUs' state; returns whether it wrote. */
  public synchronized boolean publish() {
    var slices = client.genericKubernetesResources(DraDriver.RESOURCE_SLICES);
    GenericKubernetesResource live = slices.withName(sliceName).get();
    List<NodeResourceSlice.GpuState> now = gpus.get();
    if (live == null) {
      ObjectNode slice = JSON.createObjectNode();
      slice.put("apiVersion", DraDriver.API_VERSION);
      slice.put("kind", "ResourceSlice");
      ObjectNode metadata = slice.putObject("metadata");
      metadata.put("name", sliceName);
      ownerReference().ifPresent(o -> metadata.putArray("ownerReferences").add(o));
      slice.set("spec", NodeResourceSlice.spec(nodeName, 1, now));
      slices.resource(toResource(slice)).create();
      metrics.resourceSliceUpdate("created");
      LOG.info("ResourceSlice " + sliceName + " created with " + now.size() + " GPU(s)");
      return true;
    }
    ObjectNode liveJson = JSON.valueToTree(live);
    JsonNode liveSpec = liveJson.path("spec");
    long generation = liveSpec.path("pool").path("generation").asLong(0);
    if (comparable(liveSpec).equals(comparable(NodeResourceSlice.spec(nodeName, 0, now)))) {
      return false;
    }
    liveJson.set("spec", NodeResourceSlice.spec(nodeName, generation + 1, now));
    slices.resource(toResource(liveJson)).update();
    metrics.resourceSliceUpdate("updated");
    LOG.info("ResourceSlice " + sliceName + " updated (pool generation " + (generation + 1) + ")");
    return true;
  }

  /**
   * The spec without what the API server fills in or what changes with every write, quantities in
   * one form (the API server writes 151397597184 as 141Gi).
   */
  static JsonNode comparable(JsonNode spec) {
    ObjectNode copy = spec.deepCopy();
    if (copy.path("pool") instanceof ObjectNode pool) {
      pool.remove("generation");
    }
    for (JsonNode d : copy.path("devices")) {
      for (JsonNode t : d.path("taints")) {
        ((ObjectNode) t).remove("timeAdded");
      }
      for (JsonNode c : d.path("capacity")) {
        canonical(c, "value");
        JsonNode policy = c.path("requestPolicy");
        canonical(policy, "default");
        canonical(policy.path("validRange"), "min");
        canonical(policy.path("validRange"), "max");
        canonical(policy.path("validRange"), "step");
      }
    }
    return copy;
  }

  private static void canonical(JsonNode parent, String field) {
    if (parent instanceof ObjectNode o && o.hasNonNull(field)) {
      try {
        o.put(
            field,
            Quantity.getAmountInBytes(new Quantity(o.get(field).asText()))
                .stripTrailingZeros()
                .toPlainString());
      } catch (IllegalArgumentException e) {
        // not a quantity: compared as written
      }
    }
  }

  private Optional<JsonNode> ownerReference() {
    try {
      Node node = client.nodes().withName(nodeName).get();
      if (node == null) {
        return Optional.empty();
      }
      return Optional.of(
          JSON.valueToTree(
              new OwnerReferenceBuilder()
                  .withApiVersion("v1")
                  .withKind("Node")
                  .withName(nodeName)
                  .withUid(node.getMetadata().getUid())
                  .withController(true)
                  .build()));
    } catch (KubernetesClientException e) {
      LOG.log(Level.FINE, "cannot read Node " + nodeName + " for the slice's owner", e);
      return Optional.empty();
    }
  }

  private static GenericKubernetesResource toResource(JsonNode json) {
    return JSON.convertValue(json, GenericKubernetesResource.class);
  }

  @Override
  public void close() {
    worker.shutdownNow();
  }
}
