package io.smslice.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.dra.cdi.CdiSpecFiles;
import io.smslice.node.dra.claims.ResourceClaimApi;
import io.smslice.node.dra.claims.ResourceClaimReader;
import io.smslice.node.dra.kubelet.DeviceCondition;
import io.smslice.node.dra.kubelet.DraKubeletPlugin;
import io.smslice.node.dra.prepare.Checkpoint;
import io.smslice.node.dra.prepare.ClaimHandout;
import io.smslice.node.dra.prepare.ClaimPreparer;
import io.smslice.node.dra.prepare.SliceAgent;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.resources.DeviceNodes;
import io.smslice.node.transparent.TransparentTenants;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A DRA node for tests: two simulated H200-shaped green GPUs of node "node-a", the real agent
 * (in-agent, simulated backend), the claim preparer and the kubelet plugin on real Unix sockets
 * under a temporary directory, and ResourceClaims written into a (mock) API server.
 */
public final class DraTestbed implements AutoCloseable {
  public static final String NODE = "node-a";
  private static final ObjectMapper JSON = new ObjectMapper();

  public final Path root;
  public final KubernetesClient client;
  public final SimulatedBackend backend = SimulatedBackend.h200(2, NODE);
  public final List<DiscoveredGpu> gpus;
  public final Map<String, GpuCondition> health = new ConcurrentHashMap<>();
  public final NodeMetrics metrics = new NodeMetrics();
  public Agent agent;
  public ClaimPreparer preparer;
  public DraKubeletPlugin plugin;
  private final Function<Agent, SliceAgent> agentAdapter;
  private final Optional<TransparentTenants> transparent;

  public DraTestbed(Path root, KubernetesClient client) throws IOException {
    this(root, client, NodeWithAgent::sliceAgent);
  }

  /**
   * @param agentAdapter the agent as the preparer sees it (NodeWithAgent's; tests slow it down)
   */
  public DraTestbed(Path root, KubernetesClient client, Function<Agent, SliceAgent> agentAdapter)
      throws IOException {
    this(root, client, agentAdapter, Optional.empty());
  }

  /**
   * @param transparent what transparent claims get (empty: the node has transparent off)
   */
  public DraTestbed(
      Path root,
      KubernetesClient client,
      Function<Agent, SliceAgent> agentAdapter,
      Optional<TransparentTenants> transparent)
      throws IOException {
    this.root = root;
    this.client = client;
    this.agentAdapter = agentAdapter;
    this.transparent = transparent;
    this.gpus = backend.devices().stream().map(DraTestbed::green).toList();
    start();
  }

  public static DiscoveredGpu green(GpuDevice d) {
    return new DiscoveredGpu(
        d.index(),
        d.uuid(),
        d.product(),
        GpuMode.Green,
        d.memoryBytes(),
        d.smCount(),
        d.minPartitionSize(),
        d.coscheduledAlignment(),
        d.split(),
        List.of(),
        d.index(),
        null);
  }

  /** Starts the agent, the preparer (restoring the checkpoint) and the plugin. */
  public void start() throws IOException {
    agent =
        Agent.start(
            AgentOptions.of(NODE, root.resolve("run"), root.resolve("state"), RunMode.IN_AGENT),
            null,
            backend,
            null);
    SliceAgent sliceAgent = agentAdapter.apply(agent);
    preparer =
        new ClaimPreparer(
            new ResourceClaimApi(client, NODE),
            new ResourceClaimReader(NODE),
            gpus.stream().flatMap(g -> DraGpu.of(g).stream()).toList(),
            uuid -> health.getOrDefault(uuid, GpuCondition.HEALTHY),
            sliceAgent,
            Checkpoint.open(checkpointFile()),
            new CdiSpecFiles(cdiDir()),
            new ClaimHandout(
                sliceAgent,
                transparent,
                new DeviceNodes(root.resolve("dev"), root.resolve("proc"))),
            metrics);
    preparer.restore();
    plugin =
        new DraKubeletPlugin(
            root.resolve("plugins"),
            root.resolve("plugins_registry"),
            preparer,
            () ->
                preparerGpus().stream()
                    .map(
                        g -> {
                          GpuCondition c = health.getOrDefault(g.uuid(), GpuCondition.HEALTHY);
                          return new DeviceCondition(NODE, g.deviceName(), c.healthy(), c.reason());
                        })
                    .toList(),
            metrics,
            Duration.ofMillis(200));
    plugin.start();
  }

  private List<DraGpu> preparerGpus() {
    return gpus.stream().flatMap(g -> DraGpu.of(g).stream()).toList();
  }

  /** Stops plugin and agent, as a node-side restart does (files stay). */
  public void stop() {
    plugin.close();
    agent.close();
  }

  public Path checkpointFile() {
    return root.resolve("state").resolve(DraNode.CHECKPOINT);
  }

  public Path cdiDir() {
    return root.resolve("cdi");
  }

  public Path registrationSocket() {
    return root.resolve("plugins_registry").resolve("smslice.io-reg.sock");
  }

  public Path draSocket() {
    return root.resolve("plugins").resolve("smslice.io").resolve("dra.sock");
  }

  /**
   * Creates a ResourceClaim allocated one smslice.io device with consumed capacity; returns its
   * uid.
   *
   * @param opaque SliceConfig parameters from the claim, or null
   */
  public String claim(
      String namespace,
      String name,
      String pool,
      String device,
      String sms,
      String memory,
      JsonNode opaque) {
    return claim(client, namespace, name, pool, device, sms, memory, opaque);
  }

  /** As the instance method, in any API server. */
  public static String claim(
      KubernetesClient client,
      String namespace,
      String name,
      String pool,
      String device,
      String sms,
      String memory,
      JsonNode opaque) {
    ObjectNode claim = JSON.createObjectNode();
    claim.put("apiVersion", DraDriver.API_VERSION);
    claim.put("kind", "ResourceClaim");
    claim.putObject("metadata").put("name", name).put("namespace", namespace);
    ObjectNode request =
        claim.putObject("spec").putObject("devices").putArray("requests").addObject();
    request.put("name", "slice");
    request.putObject("exactly").put("deviceClassName", "sm.smslice.io");
    GenericKubernetesResource created =
        client
            .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
            .inNamespace(namespace)
            .resource(JSON.convertValue(claim, GenericKubernetesResource.class))
            .create();
    ObjectNode withStatus = JSON.valueToTree(created);
    ObjectNode devices =
        withStatus.putObject("status").putObject("allocation").putObject("devices");
    ObjectNode result = devices.putArray("results").addObject();
    result.put("request", "slice");
    result.put("driver", DraDriver.NAME);
    result.put("pool", pool);
    result.put("device", device);
    result.put("shareID", UUID.randomUUID().toString());
    ObjectNode consumed = result.putObject("consumedCapacity");
    if (sms != null) {
      consumed.put("sms", sms);
    }
    if (memory != null) {
      consumed.put("memory", memory);
    }
    if (opaque != null) {
      ObjectNode config = devices.putArray("config").addObject();
      config.put("source", "FromClaim");
      config.putObject("opaque").put("driver", DraDriver.NAME).set("parameters", opaque);
    }
    client
        .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
        .inNamespace(namespace)
        .resource(JSON.convertValue(withStatus, GenericKubernetesResource.class))
        .updateStatus();
    return created.getMetadata().getUid();
  }

  /** A claim of {@code sms} SMs on gpu-0 of this node. */
  public String claim(String namespace, String name, int sms) {
    return claim(namespace, name, NODE, "gpu-0", String.valueOf(sms), "0", null);
  }

  public JsonNode read(String namespace, String name) {
    return JSON.valueToTree(
        client
            .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
            .inNamespace(namespace)
            .withName(name)
            .get());
  }

  @Override
  public void close() {
    stop();
  }
}
