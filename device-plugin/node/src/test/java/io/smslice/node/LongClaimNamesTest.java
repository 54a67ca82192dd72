package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.allocation.KubernetesClusterView;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.resources.DeviceIds;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.FakeKubelet;
import io.smslice.node.testing.NodeFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim with the longest names Kubernetes allows (a 63-character namespace, a 253-character name)
 * is served: the agent's socket path stays within the 107 bytes a Unix socket path may have, and
 * the green Allocate mounts that socket's directory.
 */
@EnableKubernetesMockClient(crud = true)
class LongClaimNamesTest {
  private static final int UNIX_PATH_MAX = 107;

  KubernetesClient client;
  @TempDir Path tmp;

  private static String longName(int length) {
    StringBuilder b = new StringBuilder();
    while (b.length() < length) {
      b.append(b.isEmpty() ? "" : ".").append("claim-with-a-long-name");
    }
    String s = b.substring(0, length);
    return s.endsWith(".") || s.endsWith("-") ? s.substring(0, length - 1) + "x" : s;
  }

  @Test
  void theLongestNamesGetAWorkingSocketAndMount() throws Exception {
    String namespace = "n".repeat(62) + "s";
    String name = longName(253);
    assertThat(namespace).hasSize(63);
    assertThat(name).hasSize(253);

    NodeFixture.installCrds(client);
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    NodeFixture node = new NodeFixture(tmp);
    String gpu = NodeFixture.GREEN.uuid();
    SliceClaim claim =
        FakeCluster.boundClaim(
            namespace, name, NodeFixture.NODE, gpu, GpuMode.Green, 8, null, null);
    claim.getStatus().getBinding().setSmGroups(List.of(3));
    claim.getMetadata().setLabels(Map.of(SmsliceApi.NODE_LABEL, NodeFixture.NODE));
    var claims = client.resources(SliceClaim.class).inNamespace(namespace);
    SliceClaim created = claims.resource(claim).create();
    created.setStatus(claim.getStatus());
    claims.resource(created).updateStatus();

    FakeCluster pods = new FakeCluster();
    pods.addPod(
        FakeCluster.pod(
            namespace, "p", NodeFixture.NODE, name, "smslice.io/sm", 8, "2026-11-30T01:00:00Z"));
    KubernetesClusterView api = new KubernetesClusterView(client);
    ClusterView cluster =
        new ClusterView() {
          @Override
          public List<Pod> podsOnNode(String nodeName) {
            return pods.podsOnNode(nodeName);
          }

          @Override
          public Optional<SliceClaim> claim(String ns, String n) {
            return api.claim(ns, n);
          }
        };
    NodeMetrics metrics = new NodeMetrics();
    MpsDaemonManager mps =
        new MpsDaemonManager(
            node.config.mpsControlCommand(), node.config.paths()::mpsDirectory, metrics);
    Instant started = Instant.now();
    try (FakeKubelet kubelet = new FakeKubelet(node.config.paths().devicePlugins());
        Agent agent =
            Agent.start(
                AgentOptions.of(
                    NodeFixture.NODE,
                    node.config.paths().run(),
                    node.config.paths().state(),
                    RunMode.IN_AGENT),
                client,
                node.inventory,
                mps);
        NodeSide side =
            NodeSide.start(
                node.config,
                NodeFixture.NODE,
                client,
                cluster,
                node.inventory,
                node.nvml,
                agent,
                mps,
                metrics,
                new NodeSide.Timings(
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(5),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(10)))) {
      kubelet.awaitPlugin("smslice.io/sm", started, Duration.ofSeconds(10));
      List<String> ids = IntStream.range(0, 8).mapToObj(i -> DeviceIds.sm(gpu, i)).toList();

      ContainerAllocateResponse r = kubelet.allocate("smslice.io/sm", ids).getContainerResponses(0);

      Path claimDir = Path.of(r.getMounts(0).getHostPath());
      Path socket = claimDir.resolve("agent.sock");
      assertThat(Files.exists(socket)).as("the agent's socket " + socket).isTrue();
      assertThat(socket.toString().getBytes(StandardCharsets.UTF_8).length)
          .isLessThanOrEqualTo(UNIX_PATH_MAX);
      assertThat(r.getEnvsMap()).containsEntry("SMSLICE_CLAIM", namespace + "/" + name);
      // With the default run directory the path keeps a wide margin.
      Path production =
          AgentOptions.defaults(NodeFixture.NODE, RunMode.IN_AGENT)
              .claimDirectory(namespace, name)
              .resolve("agent.sock");
      assertThat(production.toString().length()).isLessThanOrEqualTo(UNIX_PATH_MAX - 30);
      assertThat(claimDir.getFileName().toString()).startsWith(namespace.substring(0, 8));
    }
  }

  @Test
  void claimDirectoryNamesAreShortStableAndDistinct() {
    String ns = "n".repeat(63);
    String a = longName(253);
    String b = a.substring(0, 252) + "y";
    assertThat(AgentOptions.claimDirectoryName(ns, a))
        .hasSizeLessThanOrEqualTo(41)
        .isEqualTo(AgentOptions.claimDirectoryName(ns, a))
        .isNotEqualTo(AgentOptions.claimDirectoryName(ns, b));
    // People can read whose directory it is; the hash tells claims apart.
    assertThat(AgentOptions.claimDirectoryName("ml", "a-b"))
        .isNotEqualTo(AgentOptions.claimDirectoryName("ml-a", "b"))
        .startsWith("ml_a-b-");
  }
}
