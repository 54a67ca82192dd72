package io.smslice.node.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.allocation.KubernetesClusterView;
import io.smslice.node.kubelet.v1beta1.AllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.resources.DeviceIds;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.NodeFixture;
import io.smslice.node.testing.RunningNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs the kubelet or the cluster may hand the plugins that must not break them: bad claim
 * annotations on other pods, devices other than the claim's, duplicated or missing ids, negative
 * sizes. Claims are read through the real API client (the mock API server), as in production.
 */
@EnableKubernetesMockClient(crud = true)
class AllocateInputsTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String SM = "smslice.io/sm";
  private static final String MIG = "smslice.io/mig";
  private static final String GPU = NodeFixture.GREEN.uuid();

  KubernetesClient client;
  @TempDir Path tmp;

  private final FakeCluster pods = new FakeCluster();
  private RunningNode node;

  @BeforeEach
  void start() throws Exception {
    NodeFixture.installCrds(client);
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
    node = RunningNode.start(tmp, client, cluster, Duration.ofMillis(600));
    node.kubelet.awaitPlugin(SM, node.started, WAIT);
    node.kubelet.awaitPlugin(MIG, node.started, WAIT);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private void createClaim(SliceClaim claim) {
    var claims = client.resources(SliceClaim.class).inNamespace(claim.getMetadata().getNamespace());
    SliceClaim created = claims.resource(claim).create();
    created.setStatus(claim.getStatus());
    claims.resource(created).updateStatus();
  }

  private Pod pendingPod(String name, String annotation, String resource, int count, String at) {
    return pods.addPod(
        FakeCluster.pod("ml", name, NodeFixture.NODE, annotation, resource, count, at));
  }

  private static List<String> sms(int from, int count) {
    return IntStream.range(from, from + count).mapToObj(i -> DeviceIds.sm(GPU, i)).toList();
  }

  private static Consumer<Throwable> status(Status.Code code, String... fragments) {
    return t -> {
      assertThat(t).isInstanceOf(StatusRuntimeException.class);
      Status s = ((StatusRuntimeException) t).getStatus();
      assertThat(s.getCode()).as(s.toString()).isEqualTo(code);
      assertThat(s.getDescription()).contains(fragments);
    };
  }

  private static void refused(ThrowingCallable call, Status.Code code, String... fragments) {
    assertThatThrownBy(call).satisfies(status(code, fragments));
  }

  @Test
  void podsWithAnEmptyOrPaddedClaimAnnotationNeverBreakAnotherPodsAllocation() {
    createClaim(
        FakeCluster.boundClaim(
            "ml", "detector", NodeFixture.NODE, GPU, GpuMode.Green, 16, null, null));
    node.agent.serve("ml", "detector");
    // Older than the good pod, so they are looked at first.
    pendingPod("empty", "", SM, 16, "2026-11-30T00:00:00Z");
    pendingPod("blank", "   ", SM, 16, "2026-11-30T00:00:01Z");
    pendingPod("not-a-name", "Detector_1", SM, 16, "2026-11-30T00:00:02Z");
    pendingPod("good", " detector ", SM, 16, "2026-11-30T01:00:00Z");

    List<String> available =
        node.kubelet.awaitDevices(SM, d -> true, WAIT).stream().map(Device::getID).toList();
    assertThat(node.kubelet.preferred(SM, available, 16))
        .hasSize(16)
        .allMatch(id -> DeviceIds.gpuOf(id).equals(GPU));

    ContainerAllocateResponse r = node.kubelet.allocate(SM, sms(0, 16)).getContainerResponses(0);
    // A space-padded name means the claim it pads, as the operator reads it.
    assertThat(r.getEnvsMap()).containsEntry("SMSLICE_CLAIM", "ml/detector");

    // With only the bad pods left, the refusal names each of them and why.
    refused(
        () -> node.kubelet.allocate(SM, sms(16, 16)),
        Status.Code.FAILED_PRECONDITION,
        "ml/empty has an empty smslice.io/claim annotation",
        "ml/blank has an empty smslice.io/claim annotation",
        "ml/not-a-name: smslice.io/claim annotation 'Detector_1' is not a SliceClaim name");
  }

  @Test
  void migAllocateServesExactlyTheDeviceTheKubeletChoseOrRefuses() {
    createClaim(
        FakeCluster.boundClaim(
            "ml",
            "tenant",
            NodeFixture.NODE,
            NodeFixture.MIG_GPU,
            GpuMode.MIG,
            16,
            "16Gi",
            NodeFixture.MIG_B.uuid()));
    pendingPod("tenant-0", "tenant", MIG, 1, "2026-11-30T01:00:00Z");

    // The kubelet may ignore the preferred device and pick another one.
    refused(
        () -> node.kubelet.allocate(MIG, List.of(NodeFixture.MIG_A.uuid())),
        Status.Code.FAILED_PRECONDITION,
        "claim tenant is bound to MIG device " + NodeFixture.MIG_B.uuid(),
        "not " + NodeFixture.MIG_A.uuid());

    ContainerAllocateResponse r =
        node.kubelet.allocate(MIG, List.of(NodeFixture.MIG_B.uuid())).getContainerResponses(0);
    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", NodeFixture.MIG_B.uuid());
  }

  @Test
  void duplicatedIdsAreRefusedAsInvalid() {
    createClaim(
        FakeCluster.boundClaim("ml", "pair", NodeFixture.NODE, GPU, GpuMode.Green, 2, null, null));
    node.agent.serve("ml", "pair");
    pendingPod("pair-0", "pair", SM, 2, "2026-11-30T01:00:00Z");
    String sm0 = DeviceIds.sm(GPU, 0);

    refused(
        () -> node.kubelet.allocate(SM, List.of(sm0, sm0)),
        Status.Code.INVALID_ARGUMENT,
        "device " + sm0 + " is listed 2 times");
    refused(
        () ->
            node.kubelet
                .stub(SM)
                .allocate(
                    AllocateRequest.newBuilder()
                        .addContainerRequests(
                            ContainerAllocateRequest.newBuilder().addDevicesIds(sm0))
                        .addContainerRequests(
                            ContainerAllocateRequest.newBuilder()
                                .addDevicesIds(sm0)
                                .addDevicesIds(DeviceIds.sm(GPU, 1)))
                        .build()),
        Status.Code.INVALID_ARGUMENT,
        "device " + sm0 + " is listed 2 times");
    // Nothing was recorded: the pod is still served.
    assertThat(node.kubelet.allocate(SM, sms(0, 2)).getContainerResponses(0).getEnvsMap())
        .containsEntry("SMSLICE_CLAIM", "ml/pair");
  }

  @Test
  void emptyRequestsAreRefusedAsInvalid() {
    refused(
        () -> node.kubelet.stub(SM).allocate(AllocateRequest.getDefaultInstance()),
        Status.Code.INVALID_ARGUMENT,
        "no container");
    refused(
        () ->
            node.kubelet
                .stub(SM)
                .allocate(
                    AllocateRequest.newBuilder()
                        .addContainerRequests(ContainerAllocateRequest.getDefaultInstance())
                        .build()),
        Status.Code.INVALID_ARGUMENT,
        "no device");
  }

  @Test
  void aNegativePreferredSizeIsRefusedAsInvalid() {
    for (String resource : List.of(SM, MIG)) {
      List<String> available =
          node.kubelet.awaitDevices(resource, d -> true, WAIT).stream().map(Device::getID).toList();
      refused(
          () -> node.kubelet.preferred(resource, available, -1),
          Status.Code.INVALID_ARGUMENT,
          "allocation size -1");
    }
  }
}
