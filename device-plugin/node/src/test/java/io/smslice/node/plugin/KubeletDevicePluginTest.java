package io.smslice.node.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.smslice.agent.AgentOptions;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.node.NodeSide;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.DeviceSpec;
import io.smslice.node.kubelet.v1beta1.Mount;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.resources.DeviceIds;
import io.smslice.node.testing.FakeAgent;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.FakeKubelet;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device plugins as the kubelet sees them: a fake kubelet serving Registration on a real Unix
 * socket, calling the plugins over their sockets with the real v1beta1 proto.
 */
@EnableKubernetesMockClient(crud = true)
class KubeletDevicePluginTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String SM = "smslice.io/sm";
  private static final String MIG = "smslice.io/mig";
  private static final String MPS = "smslice.io/mps";

  KubernetesClient client;
  @TempDir Path tmp;

  private NodeFixture node;
  private FakeCluster cluster;
  private FakeAgent agent;
  private FakeKubelet kubelet;
  private NodeSide side;
  private Instant started;

  @BeforeEach
  void start() throws Exception {
    NodeFixture.installCrds(client);
    node = new NodeFixture(tmp);
    cluster = new FakeCluster();
    agent = new FakeAgent(node.config.paths().run());
    kubelet = new FakeKubelet(node.config.paths().devicePlugins());
    started = Instant.now();
    NodeMetrics metrics = new NodeMetrics();
    side =
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
                // Long, so that re-registration after a kubelet restart can only come from the
                // directory watch, not from the periodic check.
                Duration.ofSeconds(30),
                Duration.ofMillis(600),
                Duration.ofMillis(600)));
  }

  @AfterEach
  void stop() {
    side.close();
    kubelet.close();
  }

  @Test
  void registersEachResourceAndListsItsDevices() {
    FakeKubelet.Plugin sm = kubelet.awaitPlugin(SM, started, WAIT);
    assertThat(sm.request().getVersion()).isEqualTo("v1beta1");
    assertThat(sm.request().getEndpoint()).isEqualTo("smslice-sm.sock");
    assertThat(sm.request().getOptions().getGetPreferredAllocationAvailable()).isTrue();
    kubelet.awaitPlugin(MIG, started, WAIT);
    kubelet.awaitPlugin(MPS, started, WAIT);

    assertThat(ids(kubelet.awaitDevices(SM, d -> true, WAIT)))
        .hasSize(132)
        .contains(
            DeviceIds.sm(NodeFixture.GREEN.uuid(), 0), DeviceIds.sm(NodeFixture.GREEN.uuid(), 131))
        .allMatch(id -> id.length() <= 63);
    assertThat(ids(kubelet.awaitDevices(MPS, d -> true, WAIT))).hasSize(100);
    assertThat(ids(kubelet.awaitDevices(MIG, d -> true, WAIT)))
        .containsExactlyInAnyOrder(NodeFixture.MIG_A.uuid(), NodeFixture.MIG_B.uuid());
  }

  @Test
  void greenAllocateMountsTheClaimSocketWithAToken() {
    kubelet.awaitPlugin(SM, started, WAIT);
    String gpu = NodeFixture.GREEN.uuid();
    cluster.addClaim(
        FakeCluster.boundClaim(
            "ml", "detector", NodeFixture.NODE, gpu, GpuMode.Green, 16, "8Gi", null));
    var pod =
        cluster.addPod(
            FakeCluster.pod(
                "ml", "detector-0", NodeFixture.NODE, "detector", SM, 16, "2026-11-30T01:00:00Z"));
    agent.serve("ml", "detector");

    List<String> available = ids(kubelet.awaitDevices(SM, d -> true, WAIT));
    List<String> chosen = kubelet.preferred(SM, available, 16);
    assertThat(chosen).hasSize(16).allMatch(id -> DeviceIds.gpuOf(id).equals(gpu));

    ContainerAllocateResponse r = kubelet.allocate(SM, chosen).getContainerResponses(0);
    assertThat(r.getEnvsMap())
        .containsEntry("SMSLICE_SOCKET", "/run/smslice/claim/agent.sock")
        .containsEntry("SMSLICE_CLAIM", "ml/detector");
    assertThat(agent.claimOf(r.getEnvsOrThrow("SMSLICE_TOKEN"))).isEqualTo("ml/detector");
    assertThat(r.getEnvsOrThrow("SMSLICE_TOKEN")).contains(pod.getMetadata().getUid());
    assertThat(r.getMountsList())
        .extracting(Mount::getContainerPath, Mount::getHostPath)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "/run/smslice/claim",
                node.config
                    .paths()
                    .run()
                    .resolve("claims")
                    .resolve(AgentOptions.claimDirectoryName("ml", "detector"))
                    .toString()));

    // The same container is not served twice: a second Allocate of 16 SMs finds no one waiting.
    assertThatThrownBy(() -> kubelet.allocate(SM, chosen))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
  }

  @Test
  void migAllocateGivesTheBoundMigDeviceAndItsDeviceNodes() {
    kubelet.awaitPlugin(MIG, started, WAIT);
    cluster.addClaim(
        FakeCluster.boundClaim(
            "ml",
            "tenant",
            NodeFixture.NODE,
            NodeFixture.MIG_GPU,
            GpuMode.MIG,
            16,
            "16Gi",
            NodeFixture.MIG_B.uuid()));
    cluster.addPod(
        FakeCluster.pod(
            "ml", "tenant-0", NodeFixture.NODE, "tenant", MIG, 1, "2026-11-30T01:00:00Z"));

    List<String> chosen =
        kubelet.preferred(MIG, List.of(NodeFixture.MIG_A.uuid(), NodeFixture.MIG_B.uuid()), 1);
    assertThat(chosen).containsExactly(NodeFixture.MIG_B.uuid());

    ContainerAllocateResponse r = kubelet.allocate(MIG, chosen).getContainerResponses(0);
    assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", NodeFixture.MIG_B.uuid());
    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getContainerPath)
        .containsExactlyInAnyOrder(
            "/dev/nvidiactl",
            "/dev/nvidia-uvm",
            "/dev/nvidia2",
            "/dev/nvidia-caps/nvidia-cap75",
            "/dev/nvidia-caps/nvidia-cap76");
  }

  @Test
  void mpsAllocateGivesThePipeDirectoryAndTheClaimsLimits() throws Exception {
    kubelet.awaitPlugin(MPS, started, WAIT);
    String gpu = NodeFixture.MPS.uuid();
    cluster.addClaim(
        FakeCluster.boundClaim("ml", "batch", NodeFixture.NODE, gpu, GpuMode.MPS, 33, "8Gi", null));
    cluster.addPod(
        FakeCluster.pod(
            "ml", "batch-0", NodeFixture.NODE, "batch", MPS, 25, "2026-11-30T01:00:00Z"));

    List<String> chosen =
        kubelet.preferred(MPS, ids(kubelet.awaitDevices(MPS, d -> true, WAIT)), 25);
    ContainerAllocateResponse r = kubelet.allocate(MPS, chosen).getContainerResponses(0);

    Path pipe = node.config.paths().mpsDirectory(gpu).resolve("pipe");
    assertThat(r.getEnvsMap())
        .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/run/smslice/mps/pipe")
        .containsEntry("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25") // 33 of 132 SMs
        .containsEntry("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", gpu);
    assertThat(r.getMountsList()).extracting(Mount::getHostPath).containsExactly(pipe.toString());
    // The GPU's MPS control daemon runs, for that GPU, with that pipe directory.
    assertThat(side.mps().running(gpu)).isTrue();
    assertThat(Files.readString(pipe.resolve("fake-daemon.gpu")).trim()).isEqualTo(gpu);
  }

  @Test
  void anAllocateThatCannotBeResolvedTellsThePodWhy() {
    kubelet.awaitPlugin(SM, started, WAIT);
    // A pod that asks for SMs but names a claim bound elsewhere.
    cluster.addClaim(
        FakeCluster.boundClaim(
            "ml",
            "elsewhere",
            "other-node",
            NodeFixture.GREEN.uuid(),
            GpuMode.Green,
            8,
            null,
            null));
    cluster.addPod(
        FakeCluster.pod(
            "ml", "lost-0", NodeFixture.NODE, "elsewhere", SM, 8, "2026-11-30T01:00:00Z"));
    List<String> ids =
        IntStream.range(0, 8).mapToObj(i -> DeviceIds.sm(NodeFixture.GREEN.uuid(), i)).toList();

    assertThatThrownBy(() -> kubelet.allocate(SM, ids))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains("no pod on node gpu-node-1 is waiting for 8 smslice.io/sm")
                  .contains("claim elsewhere is bound to node other-node")
                  .contains("smslice.io/claim");
            });
  }

  @Test
  void unhealthyGpuIsReportedAndRecovers() {
    kubelet.awaitPlugin(SM, started, WAIT);
    String gpu = NodeFixture.GREEN.uuid();
    node.nvml.setProblem(gpu, "retired memory pages are pending");
    kubelet.awaitDevices(
        SM, d -> d.stream().allMatch(x -> x.getHealth().equals("Unhealthy")), WAIT);
    assertThat(kubelet.awaitDevices(MPS, d -> true, WAIT))
        .allMatch(x -> x.getHealth().equals("Healthy"));
    awaitSliceNodeHealth(gpu, GpuHealth.Unhealthy);

    node.nvml.setProblem(gpu, null);
    kubelet.awaitDevices(SM, d -> d.stream().allMatch(x -> x.getHealth().equals("Healthy")), WAIT);
    awaitSliceNodeHealth(gpu, GpuHealth.Healthy);

    // A critical Xid marks the GPU until the quiet period passes; an application Xid does not.
    node.nvml.injectXid(NodeFixture.MPS.uuid(), 31);
    node.nvml.injectXid(NodeFixture.MPS.uuid(), 79);
    kubelet.awaitDevices(
        MPS, d -> d.stream().allMatch(x -> x.getHealth().equals("Unhealthy")), WAIT);
    kubelet.awaitDevices(MPS, d -> d.stream().allMatch(x -> x.getHealth().equals("Healthy")), WAIT);
  }

  @Test
  void kubeletRestartLeadsToRegistrationWithinTwoSeconds() throws Exception {
    kubelet.awaitPlugin(SM, started, WAIT);
    kubelet.awaitPlugin(MIG, started, WAIT);
    kubelet.awaitPlugin(MPS, started, WAIT);

    Instant restarted = Instant.now();
    kubelet.restart();
    for (String resource : List.of(SM, MIG, MPS)) {
      FakeKubelet.Plugin p = kubelet.awaitPlugin(resource, restarted, Duration.ofSeconds(2));
      assertThat(Duration.between(restarted, p.registeredAt())).isLessThan(Duration.ofSeconds(2));
    }
    assertThat(kubelet.awaitDevices(SM, d -> true, WAIT)).hasSize(132);
  }

  private void awaitSliceNodeHealth(String gpu, GpuHealth health) {
    Instant deadline = Instant.now().plus(WAIT);
    while (Instant.now().isBefore(deadline)) {
      SliceNode sn = client.resources(SliceNode.class).withName(NodeFixture.NODE).get();
      if (sn != null
          && sn.getStatus() != null
          && sn.getStatus().getGpus().stream()
              .anyMatch(g -> g.getUuid().equals(gpu) && g.getHealth() == health)) {
        NodeGpu g =
            sn.getStatus().getGpus().stream()
                .filter(x -> x.getUuid().equals(gpu))
                .findFirst()
                .get();
        assertThat(g.getHealthReason() != null).isEqualTo(health == GpuHealth.Unhealthy);
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("SliceNode never showed GPU " + gpu + " " + health);
  }

  private static List<String> ids(List<Device> devices) {
    return devices.stream().map(Device::getID).toList();
  }
}
