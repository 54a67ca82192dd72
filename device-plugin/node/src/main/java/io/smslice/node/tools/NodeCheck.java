package io.smslice.node.tools;

import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.discovery.GpuDiscovery;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.mps.MpsDaemonManager;
import io.smslice.node.nvml.NativeNvml;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.NvmlMigDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Checks a GPU node with the real backends, for administrators and for the project's record of the
 * H200 machine. Read-only towards the GPU: it changes no GPU setting.
 *
 * <ul>
 *   <li>{@code discovery}: what the cuda backend and NVML report, and the merged view the node side
 *       publishes.
 *   <li>{@code mps <run-dir> <client...>}: starts the first GPU's MPS control daemon through the
 *       node side's daemon manager, runs the client once at 100% and once limited to 25% of the
 *       SMs, shows the MPS server in nvidia-smi, and quits the daemon.
 * </ul>
 */
public final class NodeCheck {
  private NodeCheck() {}

  public static void main(String[] args) throws Exception {
    if (args.length >= 1 && args[0].equals("discovery")) {
      discovery();
    } else if (args.length >= 3 && args[0].equals("mps")) {
      mps(Path.of(args[1]), List.of(args).subList(2, args.length));
    } else {
      System.err.println(
          "usage: NodeCheck discovery | NodeCheck mps <run-dir> <client command...>");
      System.exit(2);
    }
  }

  private static void discovery() {
    NodeConfig config = new ConfigLoader(List.of(), Map.of()).load(Optional.empty());
    try (GpuBackend backend = Backends.open("cuda");
        NativeNvml nvml = NativeNvml.open()) {
      System.out.println("NVML driver version: " + nvml.driverVersion());
      System.out.println("GPU backend: " + backend.backendName());
      for (var d : backend.devices()) {
        System.out.printf(
            "cuda  GPU %d %s %s: %d SMs, minSmPartitionSize %d, smCoscheduledAlignment %d,"
                + " memory %d MiB%n      split (%d groups): %s%n",
            d.index(),
            d.uuid(),
            d.product(),
            d.smCount(),
            d.minPartitionSize(),
            d.coscheduledAlignment(),
            d.memoryBytes() >> 20,
            d.split().size(),
            d.split().stream().map(g -> g.id() + ":" + g.sms()).toList());
      }
      for (NvmlGpu g : nvml.gpus()) {
        System.out.printf(
            "nvml  GPU %d %s %s: memory %d MiB, minor %d, MIG %s, MIG devices %d, health %s%n",
            g.index(),
            g.uuid(),
            g.name(),
            g.memoryBytes() >> 20,
            g.minorNumber(),
            g.migEnabled() ? "enabled" : "disabled",
            g.migDevices().size(),
            nvml.healthProblem(g.uuid()).orElse("no problem reported"));
        for (NvmlMigDevice m : g.migDevices()) {
          System.out.printf(
              "      MIG %s %s: %d SMs, %d MiB, GI %d CI %d%n",
              m.uuid(),
              m.profile(),
              m.sms(),
              m.memoryBytes() >> 20,
              m.gpuInstanceId(),
              m.computeInstanceId());
        }
      }
      for (DiscoveredGpu g : GpuDiscovery.discover(backend, nvml, config)) {
        System.out.printf(
            "node  GPU %d %s: mode %s, %d SMs, groups %s, MIG devices %d%s%n",
            g.index(),
            g.uuid(),
            g.mode(),
            g.smCount(),
            g.split().stream().map(s -> s.sms()).toList(),
            g.migDevices().size(),
            g.note() == null ? "" : " (" + g.note() + ")");
      }
    }
  }

  private static void mps(Path runDir, List<String> client) throws Exception {
    String gpu;
    try (NativeNvml nvml = NativeNvml.open()) {
      gpu = nvml.gpus().getFirst().uuid();
    }
    Path mpsRoot = runDir.resolve("mps");
    try (MpsDaemonManager manager =
        new MpsDaemonManager(
            List.of("nvidia-cuda-mps-control"), mpsRoot::resolve, new NodeMetrics())) {
      manager.start(gpu);
      Path pipe = manager.pipeDirectory(gpu);
      Instant deadline = Instant.now().plus(Duration.ofSeconds(15));
      while (!Files.exists(pipe.resolve("control")) && Instant.now().isBefore(deadline)) {
        Thread.sleep(100);
      }
      System.out.println(
          "MPS control daemon for "
              + gpu
              + ": running "
              + manager.running(gpu)
              + ", pid "
              + manager.pid(gpu)
              + ", pipe directory "
              + pipe
              + " holds "
              + list(pipe));
      for (String percent : new String[] {null, "25"}) {
        List<String> env = new ArrayList<>();
        env.add("CUDA_MPS_PIPE_DIRECTORY=" + pipe);
        if (percent != null) {
          env.add("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + percent);
        }
        System.out.println("client with " + env + ":");
        System.out.print(run(client, env));
      }
      System.out.print(
          "nvidia-smi while the MPS server is up:\n" + run(List.of("nvidia-smi"), List.of()));
      System.out.print(
          "MPS daemon's server list: "
              + run(
                  List.of("sh", "-c", "echo get_server_list | nvidia-cuda-mps-control"),
                  List.of("CUDA_MPS_PIPE_DIRECTORY=" + pipe)));
      long pid = manager.pid(gpu);
      manager.close();
      System.out.println(
          "after quit: daemon pid "
              + pid
              + " alive "
              + ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
      System.out.print(
          "MPS control log:\n" + tail(mpsRoot.resolve(gpu).resolve("log/control.log")));
    }
  }

  private static String run(List<String> command, List<String> env)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    for (String e : env) {
      pb.environment().put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return out + "(exit " + p.exitValue() + ")\n";
  }

  private static List<String> list(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  private static String tail(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "(no " + file + ")\n";
    }
    List<String> lines = Files.readAllLines(file);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
  }
}
