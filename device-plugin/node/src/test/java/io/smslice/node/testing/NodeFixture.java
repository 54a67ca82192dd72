package io.smslice.node.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.NvmlMigDevice;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A node with three GPUs, one per mode: GPU 0 green (H200-shaped, 132 SMs), GPU 1 MPS (132 SMs),
 * GPU 2 MIG with two 1g.18gb instances (not in the CUDA inventory, as on a MIG-enabled GPU). Device
 * nodes, the driver's mig-minors file and a fake MPS control program live in a temp directory.
 */
public final class NodeFixture {
  public static final String NODE = "gpu-node-1";
  public static final GpuDevice GREEN = SimulatedBackend.h200Device(0);
  public static final GpuDevice MPS = SimulatedBackend.h200Device(1);
  public static final String MIG_GPU = "GPU-51a0a7ed-0000-4000-8000-0000000000aa";
  public static final NvmlMigDevice MIG_A =
      new NvmlMigDevice(
          "MIG-aaaaaaaa-1111-5000-8000-000000000001", "1g.18gb", 16, 18176L << 20, 7, 0);
  public static final NvmlMigDevice MIG_B =
      new NvmlMigDevice(
          "MIG-aaaaaaaa-1111-5000-8000-000000000002", "1g.18gb", 16, 18176L << 20, 8, 0);

  public final Path root;
  public final NodeConfig config;
  public final SimulatedBackend inventory = new SimulatedBackend(List.of(GREEN, MPS));
  public final io.smslice.node.nvml.SimulatedNvml nvml =
      new io.smslice.node.nvml.SimulatedNvml(
          List.of(
              nvmlOf(GREEN, 0),
              nvmlOf(MPS, 1),
              new NvmlGpu(2, MIG_GPU, "NVIDIA H200", 141L << 30, 2, true, List.of(MIG_A, MIG_B))));

  public NodeFixture(Path root) throws IOException {
    this(root, "devicePlugin");
  }

  /**
   * @param allocation the config's allocation: devicePlugin or dra
   */
  public NodeFixture(Path root, String allocation) throws IOException {
    this.root = root;
    Path dev = root.resolve("dev");
    Files.createDirectories(dev.resolve("nvidia-caps"));
    for (String n :
        List.of(
            "nvidiactl",
            "nvidia-uvm",
            "nvidia0",
            "nvidia1",
            "nvidia2",
            "nvidia-caps/nvidia-cap66",
            "nvidia-caps/nvidia-cap67",
            "nvidia-caps/nvidia-cap75",
            "nvidia-caps/nvidia-cap76")) {
      Files.writeString(dev.resolve(n), "");
    }
    Path caps = root.resolve("proc/driver/nvidia-caps");
    Files.createDirectories(caps);
    Files.writeString(
        caps.resolve("mig-minors"),
        "config 1\nmonitor 2\ngpu2/gi7/access 66\ngpu2/gi7/ci0/access 67\n"
            + "gpu2/gi8/access 75\ngpu2/gi8/ci0/access 76\n");
    Path mps = root.resolve("fake-mps-control.sh");
    try (InputStream in = NodeFixture.class.getResourceAsStream("/fake-mps-control.sh")) {
      Files.copy(in, mps, StandardCopyOption.REPLACE_EXISTING);
    }
    mps.toFile().setExecutable(true);
    Path configDir = root.resolve("config");
    Files.createDirectories(configDir);
    Files.writeString(
        configDir.resolve("default.yaml"),
        """
        version: v1
        backend: simulated
        runMode: in-agent
        allocation: %s
        gpus:
          defaultMode: green
          overrides:
            - {match: "1", mode: mps}
            - {match: %s, mode: mig}
        paths:
          devicePlugins: %s
          run: %s
          state: %s
          dev: %s
          proc: %s
          kubeletPlugins: %s
          pluginsRegistry: %s
          cdi: %s
        heartbeatSeconds: 1
        metricsPort: 0
        mps:
          controlCommand: [%s]
        """
            .formatted(
                allocation,
                MIG_GPU,
                root.resolve("device-plugins"),
                root.resolve("run"),
                root.resolve("state"),
                dev,
                root.resolve("proc"),
                root.resolve("plugins"),
                root.resolve("plugins_registry"),
                root.resolve("cdi"),
                mps));
    config =
        new ConfigLoader(List.of("--config-dir=" + configDir), Map.of()).load(Optional.empty());
  }

  /**
   * This fixture's config in worker run mode with transparent slices (a stand-in interposer, the
   * guard's files in {@code root/shm}) and {@code guard} as transparent.guard.
   */
  public NodeConfig transparentConfig(Map<String, Object> guard) throws IOException {
    Path library = root.resolve("image/libsmslice-interposer.so");
    Files.createDirectories(library.getParent());
    Files.write(library, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0});
    Path shm = Files.createDirectories(root.resolve("shm"));
    String yaml =
        Files.readString(root.resolve("config/default.yaml"))
                .replace("runMode: in-agent", "runMode: worker")
            + """
            transparent:
              library: %s
              installDirectory: %s
              mpsShm: %s
              guard:
            """
                .formatted(library, root.resolve("host/interposer"), shm)
            + guard.entrySet().stream()
                .map(e -> "    " + e.getKey() + ": " + e.getValue() + "\n")
                .collect(Collectors.joining());
    Path dir = Files.createDirectories(root.resolve("transparent-config"));
    Files.writeString(dir.resolve("default.yaml"), yaml);
    return new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
  }

  private static NvmlGpu nvmlOf(GpuDevice d, int minor) {
    return new NvmlGpu(d.index(), d.uuid(), d.product(), d.memoryBytes(), minor, false, List.of());
  }

  /** Loads the project's generated CRDs into a (mock) API server. */
  public static void installCrds(KubernetesClient client) throws IOException {
    Path crds = Path.of("../../crds");
    for (String f : List.of("sliceclaims.smslice.io-v1.yml", "slicenodes.smslice.io-v1.yml")) {
      try (InputStream in = Files.newInputStream(crds.resolve(f))) {
        CustomResourceDefinition crd =
            client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .resource(crd)
            .createOr(c -> c.update());
      }
    }
  }
}
