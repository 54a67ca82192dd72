package io.smslice.examples.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.NodeSide;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.nvml.NativeNvml;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.NvmlMigDevice;
import io.smslice.node.nvml.SimulatedNvml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node side of the demo's one node, in this JVM: GPU backend and NVML, the agent, and {@link
 * NodeSide} (device plugins, SliceNode publisher) started from a config file in a temporary
 * directory, as the DaemonSet starts it from its ConfigMap.
 *
 * <p>Without a GPU the backend is simulated: three H200-shaped GPUs in green mode, and a fourth,
 * NVIDIA-style MIG-enabled GPU with 1g.18gb instances (its MIG capability minors come from a
 * simulated /proc file), so that every example has somewhere to run.
 *
 * <p>The interference guard starts off on every GPU and is let on by {@link #guard} (the demo's
 * guard phase); on the simulated GPU the agent's guard files are made in the work directory, since
 * only the agent's own executors use them there.
 */
final class DemoNode implements AutoCloseable {
  private static final int SIMULATED_GREEN_GPUS = 3;
  private static final String MIG_GPU_UUID = "GPU-51a0a7ed-0000-4000-8000-00000000a1c0";

  private final String nodeName;
  private final GpuBackend backend;
  private final Nvml nvml;
  private final NodeWithAgent node;
  private final NodeSide side;
  private final boolean transparent;
  private volatile boolean guardOn;

  private DemoNode(
      String nodeName, GpuBackend backend, Nvml nvml, NodeWithAgent node, boolean transparent) {
    this.nodeName = nodeName;
    this.transparent = transparent;
    this.backend = backend;
    this.nvml = nvml;
    this.node = node;
    this.side = node.side();
    node.agent().gateGuard(gpu -> guardOn);
  }

  /**
   * Starts the node side on {@code backend} (from {@link #openBackend}), which it then owns and
   * closes.
   */
  static DemoNode start(
      String nodeName, Path work, KubernetesClient client, DemoOptions options, GpuBackend backend)
      throws IOException {
    boolean simulated = backend.simulated();
    Path configDir = work.resolve("config");
    Files.createDirectories(configDir);
    Files.writeString(
        configDir.resolve("default.yaml"),
        configYaml(work, runDirectory(work, options.gpu()), simulated, options.gpu())
            + (options.gpu() ? transparentYaml(work, options) : ""));
    NodeConfig config =
        new ConfigLoader(List.of("--config-dir=" + configDir), Map.of()).load(Optional.empty());
    Nvml nvml = simulated ? simulatedNvml(backend.devices(), work) : NativeNvml.open();
    NodeWithAgent node = NodeWithAgent.start(config, nodeName, client, backend, nvml);
    if (!config.transparent().enabled()) {
      // A transparent node's agent has its guard already (NodeWithAgent); here only its executors.
      Path guards = work.resolve("guard");
      Files.createDirectories(guards);
      node.agent().useGuard(guards, config.transparent().guard());
    }
    return new DemoNode(nodeName, backend, nvml, node, config.transparent().enabled());
  }

  /**
   * The GPU backend the options ask for: with --gpu the real GPU, or a clear error (the simulated
   * GPU cannot run PyTorch); else auto (the GPU when CUDA finds one, else this demo's simulated
   * GPUs), cuda or simulated.
   */
  static GpuBackend openBackend(DemoOptions options) {
    return options.gpu() ? gpuBackend() : openBackend(options.backend());
  }

  private static GpuBackend gpuBackend() {
    try {
      return Backends.open("cuda");
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "--gpu needs an NVIDIA GPU and its driver: "
              + e.getMessage()
              + " Run ./demo without --gpu for the simulated GPU.",
          e);
    }
  }

  /**
   * Transparent slices, as a node that serves unmodified CUDA programs runs them: the agent serves
   * claims in worker processes, every green GPU gets an MPS daemon (its pipes under the run
   * directory), and the interposer is installed for the tenants. There is no node container, so the
   * MPS daemons' /dev/shm is this machine's, which the tenants' processes share.
   */
  private static String transparentYaml(Path work, DemoOptions options) {
    return String.join(
        "\n",
        "transparent:",
        "  enabled: true",
        "  library: " + options.interposer(),
        "  installDirectory: " + work.resolve("interposer"),
        "  mpsShm: /dev/shm",
        "");
  }

  private static GpuBackend openBackend(String name) {
    if (!name.equals("simulated")) {
      GpuBackend backend = Backends.open(name);
      if (!backend.simulated()) {
        return backend;
      }
      backend.close();
    }
    return SimulatedBackend.h200(SIMULATED_GREEN_GPUS);
  }

  private static String configYaml(Path work, Path run, boolean simulated, boolean transparent) {
    return String.join(
        "\n",
        "version: v1",
        "backend: " + (simulated ? "simulated" : "cuda"),
        // In-agent: every claim's green context lives in the agent, so no MPS daemon is needed;
        // transparent tenants need one, and then the agent's claims are MPS clients too.
        "runMode: " + (transparent ? "worker" : "in-agent"),
        "heartbeatSeconds: 5",
        "metricsPort: 0",
        "gpus:",
        "  defaultMode: green",
        simulated ? "  overrides: [{match: " + MIG_GPU_UUID + ", mode: mig}]" : "  overrides: []",
        "paths:",
        "  devicePlugins: " + work.resolve("kubelet/device-plugins"),
        "  run: " + run,
        "  state: " + work.resolve("state"),
        // The simulated MIG GPU's capability minors are in the work directory; a real GPU's
        // device nodes and driver files are where the node reads them.
        "  dev: " + (simulated ? work.resolve("dev") : "/dev"),
        "  proc: " + (simulated ? work.resolve("proc") : "/proc"),
        "");
  }

  /**
   * The run directory (claim sockets, MPS pipes and logs). With MPS its path must stay short: the
   * MPS daemon's sockets in {@code mps/<gpu-uuid>/pipe} must fit a Unix socket path (107 bytes),
   * which the demo's temporary work directory, with its long random name, leaves too little room
   * for; the work directory then links to it as run.
   */
  private static Path runDirectory(Path work, boolean transparent) throws IOException {
    if (!transparent) {
      return work.resolve("run");
    }
    Path run =
        Path.of(
            System.getProperty("java.io.tmpdir"), "smslice-run-" + ProcessHandle.current().pid());
    Files.createDirectories(run);
    Files.createSymbolicLink(work.resolve("run"), run);
    return run;
  }

  /**
   * NVML's view of the simulated GPUs, plus a GPU in MIG mode with three 1g.18gb instances. The
   * capability minors it would have in /proc/driver/nvidia-caps/mig-minors are written to the
   * demo's proc directory.
   */
  private static Nvml simulatedNvml(List<GpuDevice> devices, Path work) throws IOException {
    List<NvmlGpu> gpus = new ArrayList<>();
    for (GpuDevice d : devices) {
      gpus.add(
          new NvmlGpu(
              d.index(), d.uuid(), d.product(), d.memoryBytes(), d.index(), false, List.of()));
    }
    int index = devices.size();
    List<NvmlMigDevice> instances = new ArrayList<>();
    StringBuilder minors = new StringBuilder();
    for (int gi = 1; gi <= 3; gi++) {
      instances.add(
          new NvmlMigDevice(
              String.format("MIG-51a0a7ed-0000-4000-8000-%012x", gi),
              "1g.18gb",
              16,
              18L << 30,
              gi,
              0));
      minors.append(String.format("gpu%d/gi%d/access %d%n", index, gi, 10 * gi));
      minors.append(String.format("gpu%d/gi%d/ci0/access %d%n", index, gi, 10 * gi + 1));
    }
    gpus.add(
        new NvmlGpu(
            index,
            MIG_GPU_UUID,
            "NVIDIA H200 (simulated, MIG mode)",
            141L << 30,
            index,
            true,
            instances));
    Path caps = work.resolve("proc/driver/nvidia-caps");
    Files.createDirectories(caps);
    Files.writeString(caps.resolve("mig-minors"), minors);
    return new SimulatedNvml(gpus);
  }

  /** Waits until the device plugins registered with the kubelet and the SliceNode is published. */
  void awaitReady(KubernetesClient client, DemoKubelet kubelet, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int expected = (int) side.gpus().stream().map(DiscoveredGpu::mode).distinct().count();
    while (System.nanoTime() < deadline) {
      SliceNode published = client.resources(SliceNode.class).withName(nodeName).get();
      if (published != null
          && published.getStatus() != null
          && kubelet.registeredResources().size() >= expected) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "the node side did not publish its SliceNode and register its device plugins within "
            + timeout.toSeconds()
            + " s (registered: "
            + kubelet.registeredResources()
            + ")");
  }

  /** The GPUs the node side serves, as it discovered them. */
  List<DiscoveredGpu> gpus() {
    return side.gpus();
  }

  /** The processes attached to a transparent claim now, as "command pid N (host pid M)". */
  List<String> attached(String namespace, String claim) {
    return node.agent().transparentProcesses(namespace + "/" + claim).stream()
        .map(p -> p.command() + " pid " + p.pid() + " (host pid " + p.hostPid() + ")")
        .toList();
  }

  boolean offersMig() {
    return side.gpus().stream().anyMatch(g -> g.mode() == GpuMode.MIG);
  }

  String backendName() {
    return backend.backendName();
  }

  String gpuLabel() {
    List<String> parts = new ArrayList<>();
    for (DiscoveredGpu g : side.gpus()) {
      parts.add(
          "GPU " + g.index() + " " + g.product() + ", " + g.mode() + ", " + g.smCount() + " SMs");
    }
    return (backend.simulated()
            ? "SIMULATED GPUs: no GPU is used; kernel times are modelled from H200 measurements"
                + " (docs/demo.md)"
            : transparent
                ? "GPUs (CUDA driver, real green contexts; MPS daemon and interposer for"
                    + " unmodified programs)"
                : "GPUs (CUDA driver, real green contexts)")
        + System.lineSeparator()
        + String.join(System.lineSeparator(), parts);
  }

  boolean simulated() {
    return backend.simulated();
  }

  /**
   * The "what if": turns SM slicing off on the simulated GPUs, so that every kernel uses and waits
   * for every SM of its GPU, as unpartitioned work does. A real GPU is left as it is.
   */
  void stopSlicing() {
    if (backend instanceof SimulatedBackend simulated) {
      simulated.slicing(false);
    }
  }

  /**
   * Lets the agent turn the interference guard on (it does on each GPU that latency-critical and
   * best-effort claims share) or turns it off everywhere.
   */
  void guard(boolean on) {
    guardOn = on;
    node.agent().refreshGuards();
  }

  /** Per claim ({@code namespace/name}), the best-effort launches the guard held so far. */
  Map<String, Long> guardHolds() {
    Map<String, Long> holds = new java.util.TreeMap<>();
    Matcher m = GUARD_HOLDS.matcher(node.agent().renderMetrics());
    while (m.find()) {
      holds.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return holds;
  }

  private static final Pattern GUARD_HOLDS =
      Pattern.compile(
          "(?m)^smslice_guard_holds_total\\{[^}]*claim=\"([^\"]*)\",priority=\"BestEffort\"\\} (\\S+)$");

  String describe() {
    return side.gpus().size() + " GPU(s), backend " + backend.backendName();
  }

  @Override
  public void close() throws Exception {
    node.close();
    nvml.close();
    backend.close();
  }
}
