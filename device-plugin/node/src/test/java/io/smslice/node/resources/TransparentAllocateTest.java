package io.smslice.node.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.node.NodeSide;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.DeviceSpec;
import io.smslice.node.kubelet.v1beta1.Mount;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.testing.FakeAgent;
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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocate for transparent claims through the kubelet's real v1beta1 proto: the interposer, its
 * ld.so.preload, the GPU's MPS pipe directory and shared memory, and the pod's opt-out.
 */
@EnableKubernetesMockClient(crud = true)
class TransparentAllocateTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String SM = "smslice.io/sm";
  private static final byte[] LIBRARY = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 42};

  KubernetesClient client;
  @TempDir Path tmp;

  private NodeFixture node;
  private NodeConfig config;
  private final FakeCluster cluster = new FakeCluster();
  private FakeAgent agent;
  private FakeKubelet kubelet;
  private NodeSide side;
  private Instant started;

  /** The fixture's node in worker run mode with transparent slices, as the chart configures it. */
  private void start(boolean shipLibrary) throws Exception {
    NodeFixture.installCrds(client);
    node = new NodeFixture(tmp);
    Path image = tmp.resolve("image/libsmslice-interposer.so");
    Files.createDirectories(image.getParent());
    if (shipLibrary) {
      Files.write(image, LIBRARY);
    }
    Files.createDirectories(tmp.resolve("shm"));
    Path dir = tmp.resolve("transparent-config");
    Files.createDirectories(dir);
    String yaml =
        Files.readString(tmp.resolve("config/default.yaml"))
                .replace("runMode: in-agent", "runMode: worker")
            + """
            transparent:
              library: %s
              installDirectory: %s
              mpsShm: %s
            """
                .formatted(image, tmp.resolve("host/interposer"), tmp.resolve("shm"));
    Files.writeString(dir.resolve("default.yaml"), yaml);
    config = new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
    agent = new FakeAgent(config.paths().run());
    kubelet = new FakeKubelet(config.paths().devicePlugins());
    started = Instant.now();
    NodeMetrics metrics = new NodeMetrics();
    side =
        NodeSide.start(
            config,
            NodeFixture.NODE,
            client,
            cluster,
            node.inventory,
            node.nvml,
            agent,
            new MpsDaemonManager(config.mpsControlCommand(), config.paths()::mpsDirectory, metrics),
            metrics,
            new NodeSide.Timings(
                Duration.ofMillis(100),
                Duration.ofMillis(800),
                Duration.ofSeconds(30),
                Duration.ofMillis(600),
                Duration.ofMillis(600)));
    kubelet.awaitPlugin(SM, started, WAIT);
  }

  @AfterEach
  void stop() {
    if (side != null) {
      side.close();
      kubelet.close();
    }
  }

  @Test
  void aTransparentContainerGetsTheInterposerItsPreloadTheGpuAndItsMpsServer() throws Exception {
    start(true);
    String gpu = NodeFixture.GREEN.uuid();
    Pod pod = claimAndPod("detector", null);

    ContainerAllocateResponse r = kubelet.allocate(SM, sms(16)).getContainerResponses(0);

    Path installed = tmp.resolve("host/interposer");
    Path pipe = config.paths().mpsDirectory(gpu).resolve("pipe");
    assertThat(mounts(r))
        .containsEntry(
            "/run/smslice/claim",
            config
                    .paths()
                    .run()
                    .resolve("claims")
                    .resolve(io.smslice.agent.AgentOptions.claimDirectoryName("ml", "detector"))
                + " rw")
        .containsEntry(
            "/run/smslice/interposer/libsmslice-interposer.so",
            installed.resolve("libsmslice-interposer.so") + " ro")
        .containsEntry("/etc/ld.so.preload", installed.resolve("ld.so.preload") + " ro")
        .containsEntry("/run/smslice/mps/pipe", pipe + " rw")
        .containsEntry("/dev/shm", tmp.resolve("shm") + " rw")
        .containsKey("/run/smslice/tenant.env")
        .hasSize(6);
    assertThat(r.getEnvsMap())
        .containsEntry("LD_PRELOAD", "/run/smslice/interposer/libsmslice-interposer.so")
        .containsEntry("CUDA_MPS_PIPE_DIRECTORY", "/run/smslice/mps/pipe")
        .containsEntry("NVIDIA_VISIBLE_DEVICES", gpu)
        .containsEntry("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M") // the claim's 8Gi
        .containsEntry("SMSLICE_SOCKET", "/run/smslice/claim/agent.sock")
        .containsEntry("SMSLICE_CLAIM", "ml/detector")
        // The GPU's interference guard in the container's /dev/shm, and the claim's priority.
        .containsEntry("SMSLICE_GUARD", "/dev/shm/smslice-guard-" + gpu)
        .containsEntry("SMSLICE_PRIORITY", "Standard");
    assertThat(agent.claimOf(r.getEnvsOrThrow("SMSLICE_TOKEN"))).isEqualTo("ml/detector");
    assertThat(r.getEnvsOrThrow("SMSLICE_TOKEN")).contains(pod.getMetadata().getUid());
    assertThat(r.getDevicesList())
        .extracting(DeviceSpec::getContainerPath)
        .containsExactlyInAnyOrder("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0");

    // What the host files hold: the image's library, and a preload naming its container path.
    assertThat(Files.readAllBytes(installed.resolve("libsmslice-interposer.so")))
        .isEqualTo(LIBRARY);
    assertThat(Files.readString(installed.resolve("ld.so.preload")))
        .isEqualTo("/run/smslice/interposer/libsmslice-interposer.so\n");
    // For processes whose environment is scrubbed: what the interposer and the driver read, and
    // nothing else (LD_PRELOAD comes from the preload file).
    String envFile = mounts(r).get("/run/smslice/tenant.env");
    assertThat(envFile).endsWith(" ro");
    assertThat(Files.readAllLines(Path.of(envFile.substring(0, envFile.length() - 3))))
        .containsExactly(
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M",
            "CUDA_MPS_PIPE_DIRECTORY=/run/smslice/mps/pipe",
            "SMSLICE_CLAIM=ml/detector",
            "SMSLICE_GUARD=/dev/shm/smslice-guard-" + gpu,
            "SMSLICE_PRIORITY=Standard",
            "SMSLICE_SOCKET=/run/smslice/claim/agent.sock",
            "SMSLICE_TOKEN=" + r.getEnvsOrThrow("SMSLICE_TOKEN"));
    // The green GPU runs an MPS daemon on the pipe directory the container got.
    assertThat(side.mps().running(gpu)).isTrue();
    assertThat(Files.readString(pipe.resolve("fake-daemon.gpu")).trim()).isEqualTo(gpu);
  }

  @Test
  void aPodThatOptsOutGetsOnlyTheClientLibraryPath() throws Exception {
    start(true);
    claimAndPod("detector", "false");

    ContainerAllocateResponse r = kubelet.allocate(SM, sms(16)).getContainerResponses(0);

    assertThat(mounts(r)).containsOnlyKeys("/run/smslice/claim");
    assertThat(r.getEnvsMap()).containsOnlyKeys("SMSLICE_SOCKET", "SMSLICE_CLAIM", "SMSLICE_TOKEN");
    assertThat(r.getDevicesList()).isEmpty();
  }

  @Test
  void anAnnotationOtherThanTrueOrFalseIsRefusedAndTheContainerStaysUnallocated() throws Exception {
    start(true);
    claimAndPod("detector", "yes");

    assertThatThrownBy(() -> kubelet.allocate(SM, sms(16)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains("smslice.io/transparent=\"yes\"")
                  .contains("write \"true\" or \"false\"");
            });

    // Nothing was recorded: the same pod, its annotation corrected, is served.
    claimAndPod("detector", "true");
    assertThat(kubelet.allocate(SM, sms(16)).getContainerResponses(0).getEnvsMap())
        .containsKey("LD_PRELOAD");
  }

  @Test
  void withoutTheLibraryInTheImageATransparentAllocateFailsAndAnOptedOutOneWorks()
      throws Exception {
    start(false);
    claimAndPod("detector", null);

    assertThatThrownBy(() -> kubelet.allocate(SM, sms(16)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e ->
                assertThat(e.getStatus().getDescription())
                    .contains("claim ml/detector cannot run unmodified programs")
                    .contains("the interposer is not installed on this node")
                    .contains("libsmslice-interposer.so does not exist"));

    claimAndPod("detector", "false");
    assertThat(kubelet.allocate(SM, sms(16)).getContainerResponses(0).getEnvsMap())
        .doesNotContainKey("LD_PRELOAD");
  }

  @Test
  void theSliceNodeReportsTheMpsControlVersionOfGreenAndMpsGpus() throws Exception {
    start(true);
    SliceNode sn = awaitSliceNode();
    Map<String, NodeGpu> gpus =
        sn.getStatus().getGpus().stream().collect(Collectors.toMap(NodeGpu::getUuid, g -> g));
    NodeGpu green = gpus.get(NodeFixture.GREEN.uuid());
    assertThat(green.getMode()).isEqualTo(GpuMode.Green);
    assertThat(green.getMpsControlVersion()).isEqualTo(13000);
    assertThat(green.getMpsStaticPartitioning()).isFalse();
    assertThat(gpus.get(NodeFixture.MPS.uuid()).getMpsControlVersion()).isEqualTo(13000);
    // A MIG GPU runs no MPS daemon: nothing to report.
    assertThat(gpus.get(NodeFixture.MIG_GPU).getMpsControlVersion()).isNull();
    assertThat(gpus.get(NodeFixture.MIG_GPU).getMpsStaticPartitioning()).isNull();
  }

  private SliceNode awaitSliceNode() throws InterruptedException {
    Instant deadline = Instant.now().plus(WAIT);
    while (Instant.now().isBefore(deadline)) {
      SliceNode sn = client.resources(SliceNode.class).withName(NodeFixture.NODE).get();
      if (sn != null && sn.getStatus() != null) {
        return sn;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no SliceNode");
  }

  /** A claim bound to the green GPU and its pending pod, with the transparent annotation. */
  private Pod claimAndPod(String claim, String transparent) {
    cluster.addClaim(
        FakeCluster.boundClaim(
            "ml",
            claim,
            NodeFixture.NODE,
            NodeFixture.GREEN.uuid(),
            GpuMode.Green,
            16,
            "8Gi",
            null));
    Pod pod =
        FakeCluster.pod(
            "ml", claim + "-0", NodeFixture.NODE, claim, SM, 16, "2026-11-30T01:00:00Z");
    if (transparent != null) {
      Map<String, String> annotations = new java.util.HashMap<>(pod.getMetadata().getAnnotations());
      annotations.put("smslice.io/transparent", transparent);
      pod.getMetadata().setAnnotations(annotations);
    }
    agent.serve("ml", claim);
    return cluster.addPod(pod);
  }

  private static List<String> sms(int n) {
    return IntStream.range(0, n).mapToObj(i -> DeviceIds.sm(NodeFixture.GREEN.uuid(), i)).toList();
  }

  private static Map<String, String> mounts(ContainerAllocateResponse r) {
    return r.getMountsList().stream()
        .collect(
            Collectors.toMap(
                Mount::getContainerPath, m -> m.getHostPath() + (m.getReadOnly() ? " ro" : " rw")));
  }
}
