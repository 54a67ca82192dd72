package io.smslice.node.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.node.NodeSide;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The whole {@link NodeSide} of a {@link NodeFixture} node, registered with a {@link FakeKubelet}
 * over real Unix sockets; pods and claims come from the given cluster view.
 */
public final class RunningNode implements AutoCloseable {
  public final NodeFixture node;
  public final FakeAgent agent;
  public final FakeKubelet kubelet;
  public final NodeSide side;
  public final Instant started;

  private RunningNode(
      NodeFixture node, FakeAgent agent, FakeKubelet kubelet, NodeSide side, Instant started) {
    this.node = node;
    this.agent = agent;
    this.kubelet = kubelet;
    this.side = side;
    this.started = started;
  }

  /**
   * @param waitForPod how long an Allocate keeps looking for its pod
   */
  public static RunningNode start(
      Path root, KubernetesClient client, ClusterView cluster, Duration waitForPod)
      throws Exception {
    NodeFixture node = new NodeFixture(root);
    FakeAgent agent = new FakeAgent(node.config.paths().run());
    FakeKubelet kubelet = new FakeKubelet(node.config.paths().devicePlugins());
    Instant started = Instant.now();
    NodeMetrics metrics = new NodeMetrics();
    NodeSide side =
        NodeSide.start(
            node.config,
            NodeFixture.NODE,
            client,
            cluster,
            node.inventory,
            node.nvml,
            agent,
            new MpsDaemonManager(
                node.config.mpsControlCommand(), node.config.paths()::mpsDirectory, metrics),
            metrics,
            new NodeSide.Timings(
                Duration.ofMillis(100),
                Duration.ofMillis(800),
                Duration.ofSeconds(30),
                waitForPod,
                Duration.ofMillis(600)));
    return new RunningNode(node, agent, kubelet, side, started);
  }

  @Override
  public void close() {
    side.close();
    kubelet.close();
  }
}
