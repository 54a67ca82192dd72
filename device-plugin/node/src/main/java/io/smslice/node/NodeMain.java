package io.smslice.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.node.config.ConfigException;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.metrics.MetricsServer;
import io.smslice.node.nvml.NativeNvml;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.SimulatedNvml;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;

/**
 * The node DaemonSet's process: configuration, GPU backend and NVML, the agent (green contexts and
 * claim sockets), and {@link NodeSide} (device plugins, MPS daemons, SliceNode), all in one JVM.
 * Exits with status 2 and a message that says what to fix when the configuration is bad.
 */
public final class NodeMain {
  private static final Logger LOG = Logger.getLogger(NodeMain.class.getName());
  // gRPC asks for TCP keep-alive on every channel; Netty warns that Unix sockets have none.
  private static final Logger NETTY_BOOTSTRAP = Logger.getLogger("io.netty.bootstrap");

  private NodeMain() {}

  public static void main(String[] args) throws Exception {
    NETTY_BOOTSTRAP.setLevel(java.util.logging.Level.SEVERE);
    try {
      run(List.of(args));
    } catch (ConfigException e) {
      cannotStart(e.getMessage());
    }
  }

  private static void cannotStart(String why) {
    System.err.println("smslice node: cannot start: " + why);
    System.exit(2);
  }

  private static void run(List<String> args) throws Exception {
    ConfigLoader loader = new ConfigLoader(args, System.getenv());
    String nodeName =
        loader
            .setting("node-name", "NODE_NAME")
            .orElseThrow(
                () ->
                    new ConfigException(
                        "NODE_NAME is not set: give the container env NODE_NAME from the downward"
                            + " API (valueFrom.fieldRef.fieldPath: spec.nodeName), or pass"
                            + " --node-name=<node>."));
    KubernetesClient client = new KubernetesClientBuilder().build();
    Optional<String> label =
        loader.requestedName().isPresent() ? Optional.empty() : configLabel(client, nodeName);
    NodeConfig config = loader.load(label);
    LOG.info("configuration from " + config.source() + ": " + config);

    // The hook is in place before anything starts, and waits for the start to finish: a SIGTERM
    // that arrives mid-start (a pod deleted while it starts) still removes the plugin sockets.
    Object startup = new Object();
    Deque<AutoCloseable> opened = new ArrayDeque<>(List.of(client));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            Thread.ofPlatform()
                .unstarted(
                    () -> {
                      synchronized (startup) {
                        opened.forEach(NodeMain::closeQuietly);
                        stopped.countDown();
                      }
                    }));
    MetricsServer metricsServer;
    synchronized (startup) {
      GpuBackend backend =
          Backends.open(config.backend().configName(), nodeName, config.simulatedGpus());
      opened.push(backend);
      Nvml nvml =
          backend.simulated()
              ? SimulatedNvml.mirroring(backend.devices(), config.paths().simulatedFaults())
              : NativeNvml.open();
      opened.push(nvml);
      LOG.info("NVML driver " + nvml.driverVersion() + ", GPU backend " + backend.backendName());
      NodeWithAgent node = NodeWithAgent.start(config, nodeName, client, backend, nvml);
      opened.push(node);
      node.side().plugins().onPermanentRefusal(NodeMain::cannotStart);
      metricsServer = new MetricsServer(config.metricsPort(), node.metrics());
      opened.push(metricsServer);
    }
    LOG.info(
        "smslice node "
            + version()
            + " running on "
            + nodeName
            + ", metrics on :"
            + metricsServer.port()
            + "/metrics, "
            + ManagementFactory.getRuntimeMXBean().getUptime()
            + " ms after its start");
    stopped.await();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      LOG.warning("stopping " + c.getClass().getSimpleName() + ": " + e);
    }
  }

  private static Optional<String> configLabel(KubernetesClient client, String nodeName) {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new ConfigException(
          "node " + nodeName + " is not known to the API server: check NODE_NAME");
    }
    return Optional.ofNullable(node.getMetadata().getLabels())
        .map(l -> l.get(SmsliceApi.NODE_CONFIG_LABEL));
  }

  /** The version in the jar's manifest, or "dev" when run from classes. */
  public static String version() {
    String v = NodeMain.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
