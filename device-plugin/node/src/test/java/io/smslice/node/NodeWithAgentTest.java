package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.allocation.KubernetesClusterView;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.ClientFaultRecovery;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.FakeKubelet;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device plugin with the real agent in the same process, as NodeMain wires them: the agent
 * picks up a bound claim from the API server and opens its socket; a green Allocate then hands that
 * socket and a token the agent issued to the container.
 */
@EnableKubernetesMockClient(crud = true)
class NodeWithAgentTest {
  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void greenAllocateGivesTheAgentsClaimSocket() throws Exception {
    NodeFixture.installCrds(client);
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(NodeFixture.NODE)
                .withLabels(Map.of("kubernetes.io/hostname", NodeFixture.NODE))
                .endMetadata()
                .build())
        .create();
    NodeFixture node = new NodeFixture(tmp);
    String gpu = NodeFixture.GREEN.uuid();
    SliceClaim claim =
        FakeCluster.boundClaim(
            "ml", "detector", NodeFixture.NODE, gpu, GpuMode.Green, 16, "8Gi", null);
    claim.getStatus().getBinding().setSmGroups(List.of(0, 1));
    claim.getMetadata().setLabels(Map.of(SmsliceApi.NODE_LABEL, NodeFixture.NODE));
    var claims = client.resources(SliceClaim.class).inNamespace("ml");
    SliceClaim created = claims.resource(claim).create();
    created.setStatus(claim.getStatus());
    claims.resource(created).updateStatus();

    FakeCluster pods = new FakeCluster();
    Pod pod =
        pods.addPod(
            FakeCluster.pod(
                "ml",
                "detector-0",
                NodeFixture.NODE,
                "detector",
                "smslice.io/sm",
                16,
                "2026-11-30T01:00:00Z"));
    KubernetesClusterView api = new KubernetesClusterView(client);
    ClusterView cluster =
        new ClusterView() {
          @Override
          public List<Pod> podsOnNode(String nodeName) {
            return pods.podsOnNode(nodeName);
          }

          @Override
          public Optional<SliceClaim> claim(String namespace, String name) {
            return api.claim(namespace, name);
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
                () -> NodeWithAgent.claimStates(agent),
                ClientFaultRecovery.Workers.NONE,
                mps,
                metrics,
                new NodeSide.Timings(
                    Duration.ofSeconds(1),
                    Duration.ofMinutes(5),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(10)))) {
      kubelet.awaitPlugin("smslice.io/sm", started, Duration.ofSeconds(10));
      List<String> available =
          kubelet.awaitDevices("smslice.io/sm", d -> true, Duration.ofSeconds(10)).stream()
              .map(Device::getID)
              .toList();
      List<String> chosen = kubelet.preferred("smslice.io/sm", available, 16);

      ContainerAllocateResponse r =
          kubelet.allocate("smslice.io/sm", chosen).getContainerResponses(0);

      Path claimDir = Path.of(r.getMounts(0).getHostPath());
      assertThat(claimDir)
          .isEqualTo(
              node.config
                  .paths()
                  .run()
                  .resolve("claims")
                  .resolve(AgentOptions.claimDirectoryName("ml", "detector")));
      assertThat(Files.exists(claimDir.resolve("agent.sock"))).as("the agent's socket").isTrue();
      assertThat(r.getEnvsMap())
          .containsEntry("SMSLICE_SOCKET", "/run/smslice/claim/agent.sock")
          .containsEntry("SMSLICE_CLAIM", "ml/detector")
          .containsKey("SMSLICE_TOKEN");
      assertThat(r.getEnvsOrThrow("SMSLICE_TOKEN"))
          .isNotBlank()
          .doesNotContain(pod.getMetadata().getUid());
      assertThat(
              metrics.counter(
                  "smslice_node_allocations_total", "resource=\"smslice.io/sm\",result=\"ok\""))
          .isEqualTo(1);

      // The SliceNode says how the agent serves the claim, for the operator's Ready condition.
      Instant deadline = Instant.now().plusSeconds(10);
      List<ServedClaim> served = List.of();
      while (Instant.now().isBefore(deadline)) {
        SliceNode sn = client.resources(SliceNode.class).withName(NodeFixture.NODE).get();
        served = sn == null || sn.getStatus() == null ? List.of() : sn.getStatus().getClaims();
        if (!served.isEmpty()) {
          break;
        }
        Thread.sleep(50);
      }
      assertThat(served)
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getNamespace() + "/" + c.getName()).isEqualTo("ml/detector");
                assertThat(c.getGpuUuid()).isEqualTo(NodeFixture.GREEN.uuid());
                assertThat(c.isServing()).isTrue();
                assertThat(c.getTransparentProcesses()).isZero();
              });

      // The Node's labels: green, MPS and MIG GPUs; the claim's two groups of 8 are taken.
      Map<String, String> labels = Map.of();
      while (Instant.now().isBefore(deadline)) {
        labels = client.nodes().withName(NodeFixture.NODE).get().getMetadata().getLabels();
        if ("116".equals(labels.get("smslice.io/free-sms"))) {
          break;
        }
        Thread.sleep(50);
      }
      assertThat(labels)
          .containsEntry("kubernetes.io/hostname", NodeFixture.NODE)
          .containsEntry("smslice.io/mode", "mixed")
          .containsEntry("smslice.io/gpus", "3")
          .containsEntry("smslice.io/free-sms", Integer.toString(132 - 8 - 8));
    }
  }
}
