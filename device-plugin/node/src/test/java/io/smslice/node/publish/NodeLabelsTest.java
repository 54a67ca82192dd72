package io.smslice.node.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.SplitGroup;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.testing.NodeFixture;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class NodeLabelsTest {
  /** Kubernetes' label value syntax: up to 63 characters, alphanumeric at both ends. */
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$");

  KubernetesClient client;
  KubernetesMockServer server;

  private static DiscoveredGpu gpu(int index, GpuDevice d, GpuMode mode) {
    return new DiscoveredGpu(
        index,
        d.uuid(),
        d.product(),
        mode,
        d.memoryBytes(),
        d.smCount(),
        8,
        8,
        d.split(),
        List.of(),
        index,
        null);
  }

  private static ClaimState claim(String name, String gpu, List<Integer> groups) {
    return new ClaimState("ml", name, gpu, groups, true, null, List.of());
  }

  private Node node() {
    return client.nodes().withName("n1").get();
  }

  @BeforeEach
  void aNodeWithOtherLabels() {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .withLabels(Map.of("kubernetes.io/hostname", "n1", "smslice.io/config", "lab"))
                .withAnnotations(Map.of("team", "vision"))
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(false)
                .endSpec()
                .build())
        .create();
  }

  @Test
  void labelsTheNodeAndFollowsClaimsTouchingNothingElse() throws Exception {
    List<SplitGroup> split = NodeFixture.GREEN.split();
    int total = split.stream().mapToInt(SplitGroup::sms).sum();
    assertThat(total).isEqualTo(132);
    AtomicReference<List<ClaimState>> claims = new AtomicReference<>(List.of());
    NodeLabels labels =
        new NodeLabels(
            client,
            "n1",
            List.of(gpu(0, NodeFixture.GREEN, GpuMode.Green)),
            claims::get,
            uuid -> true);

    assertThat(labels.update()).isTrue();
    assertThat(node().getMetadata().getLabels())
        .containsOnly(
            entry("kubernetes.io/hostname", "n1"),
            entry("smslice.io/config", "lab"),
            entry("smslice.io/mode", "green"),
            entry("smslice.io/free-sms", "132"),
            entry("smslice.io/gpus", "1"));
    assertThat(node().getMetadata().getAnnotations()).containsOnly(entry("team", "vision"));

    // A claim binds two groups of 8 and the remainder of 12.
    claims.set(List.of(claim("detector", NodeFixture.GREEN.uuid(), List.of(0, 1, 15))));
    assertThat(labels.update()).isTrue();
    assertThat(node().getMetadata().getLabels())
        .containsEntry("smslice.io/free-sms", Integer.toString(132 - 8 - 8 - 12))
        .containsEntry("smslice.io/mode", "green")
        .containsEntry("kubernetes.io/hostname", "n1")
        .containsEntry("smslice.io/config", "lab");

    // A claim on another GPU does not count against this one.
    claims.set(
        List.of(
            claim("detector", NodeFixture.GREEN.uuid(), List.of(0, 1, 15)),
            claim("elsewhere", "GPU-other", List.of(2, 3))));
    int requests = server.getRequestCount();
    assertThat(labels.update()).isFalse();
    assertThat(server.getRequestCount()).isEqualTo(requests + 1);
    assertThat(server.getLastRequest().getMethod()).isEqualTo("GET");
  }

  @Test
  void putsBackALabelSomeoneChanged() {
    NodeLabels labels =
        new NodeLabels(
            client,
            "n1",
            List.of(gpu(0, NodeFixture.GREEN, GpuMode.Green)),
            List::of,
            uuid -> true);
    labels.update();
    client
        .nodes()
        .withName("n1")
        .edit(
            n -> {
              n.getMetadata().getLabels().put("smslice.io/free-sms", "7");
              return n;
            });
    assertThat(labels.update()).isTrue();
    assertThat(node().getMetadata().getLabels()).containsEntry("smslice.io/free-sms", "132");
  }

  @Test
  void modesAndFreeSmsAcrossGpus() {
    DiscoveredGpu green = gpu(0, NodeFixture.GREEN, GpuMode.Green);
    DiscoveredGpu mps = gpu(1, NodeFixture.MPS, GpuMode.MPS);
    assertThat(NodeLabels.mode(List.of(green))).isEqualTo("green");
    assertThat(NodeLabels.mode(List.of(mps))).isEqualTo("mps");
    assertThat(NodeLabels.mode(List.of(gpu(0, NodeFixture.GREEN, GpuMode.MIG)))).isEqualTo("mig");
    assertThat(NodeLabels.mode(List.of(gpu(0, NodeFixture.GREEN, GpuMode.Off)))).isEqualTo("off");
    assertThat(NodeLabels.mode(List.of(green, mps))).isEqualTo("mixed");
    assertThat(NodeLabels.mode(List.of())).isEqualTo("none");

    // Only green GPUs have SMs to give; an MPS GPU's split is not free SMs.
    assertThat(NodeLabels.freeSms(List.of(green, mps), List.of())).isEqualTo(132);
    assertThat(
            NodeLabels.freeSms(
                List.of(green, gpu(1, NodeFixture.MPS, GpuMode.Green)),
                List.of(claim("a", NodeFixture.MPS.uuid(), List.of(4)))))
        .isEqualTo(132 + 132 - 8);

    NodeLabels labels = new NodeLabels(client, "n1", List.of(green, mps), List::of, uuid -> true);
    assertThat(labels.wanted())
        .containsExactly(
            entry("smslice.io/mode", "mixed"),
            entry("smslice.io/free-sms", "132"),
            entry("smslice.io/gpus", "2"));
    assertThat(labels.wanted().values()).allMatch(v -> LABEL_VALUE.matcher(v).matches());
  }

  @Test
  void anUnhealthyGpuHasNoFreeSms() {
    DiscoveredGpu first = gpu(0, NodeFixture.GREEN, GpuMode.Green);
    DiscoveredGpu second = gpu(1, NodeFixture.MPS, GpuMode.Green);
    NodeLabels labels =
        new NodeLabels(
            client,
            "n1",
            List.of(first, second),
            List::of,
            uuid -> !uuid.equals(NodeFixture.MPS.uuid()));
    assertThat(labels.wanted())
        .containsEntry("smslice.io/free-sms", "132")
        .containsEntry("smslice.io/gpus", "2");
  }

  @Test
  void aMissingNodeIsAClearError() {
    NodeLabels labels = new NodeLabels(client, "gone", List.of(), List::of, uuid -> true);
    assertThatThrownBy(labels::update).hasMessage("Node gone does not exist");
  }
}
