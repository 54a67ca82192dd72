package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.examples.workload.LatencyStats;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The demo's container runtime for the PyTorch examples image (images/examples/pytorch): runs the
 * container as a process of this machine, as the image would (its entrypoint python3, its scripts'
 * folder examples/ensemble/python as the working directory), with the environment Allocate
 * returned. There is no container, so:
 *
 * <ul>
 *   <li>a path inside one of Allocate's mounts (the claim socket, the interposer named by
 *       LD_PRELOAD, the MPS pipe directory) is mapped back to the host path it comes from; the
 *       mounted /etc/ld.so.preload cannot be, so the interposer is loaded by the LD_PRELOAD that
 *       Allocate also sets; /dev/shm is the host's, which the demo's MPS daemon uses too;
 *   <li>the GPU Allocate exposes (NVIDIA_VISIBLE_DEVICES, which the NVIDIA container runtime reads)
 *       is made the only one CUDA sees, with CUDA_VISIBLE_DEVICES;
 *   <li>a UDP Service's address in the arguments is replaced by a loopback port the demo forwards
 *       to the port the Service's pod listens on (a loopback port for its containerPort).
 * </ul>
 */
final class ProcessRuntime implements ContainerRuntime, AutoCloseable {
  static final String IMAGE = "ghcr.io/smslice/examples-pytorch";
  private static final List<String> ALLOCATE_ONLY =
      List.of("LD_PRELOAD", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_VISIBLE_DEVICES");

  /** What the demo does with the processes' votes and output. */
  interface Listener {
    /** The statistics of a container just started (the models' get their votes). */
    LatencyStats started(String pod, List<String> args);

    /** A datagram sent to a Service. */
    void datagram(String text);

    /** A line the container printed; returns the state to show for it, or null for the line. */
    String line(String pod, String line);
  }

  /** A UDP port of a Service: where clients send, and the loopback port its pod listens on. */
  private record Exposed(Service service, ServicePort port, int podPort, UdpServiceProxy proxy) {}

  private final Path workdir;
  private final String python;
  private final Path logs;
  private final RunningWorkloads running;
  private final BooleanSupplier stopping;
  private final Consumer<String> log;
  private final Listener listener;
  private final List<Exposed> exposed = new CopyOnWriteArrayList<>();
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final Set<Process> terminated = ConcurrentHashMap.newKeySet();

  ProcessRuntime(
      Path repository,
      String python,
      Path logs,
      RunningWorkloads running,
      BooleanSupplier stopping,
      Consumer<String> log,
      Listener listener) {
    this.workdir = repository.resolve("examples/ensemble/python");
    this.python = python;
    this.logs = logs;
    this.running = running;
    this.stopping = stopping;
    this.log = log;
    this.listener = listener;
  }

  /** Whether this runtime runs the container (the PyTorch examples image). */
  static boolean runs(Container container) {
    return container.getImage() != null && container.getImage().startsWith(IMAGE + ":");
  }

  /** Gives the UDP Services of the examples loopback addresses; call before their pods start. */
  void expose(List<Service> services) throws IOException {
    for (Service service : services) {
      for (ServicePort port : service.getSpec().getPorts()) {
        if ("UDP".equals(port.getProtocol())) {
          int podPort = freeUdpPort();
          exposed.add(
              new Exposed(
                  service, port, podPort, new UdpServiceProxy(podPort, listener::datagram)));
        }
      }
    }
  }

  @Override
  public Exit start(Launch launch) {
    Pod pod = launch.pod();
    String name = pod.getMetadata().getName();
    Container container = launch.container();
    List<String> args = container.getArgs() == null ? List.of() : container.getArgs();
    String claim =
        pod.getMetadata().getAnnotations() == null
            ? "-"
            : pod.getMetadata().getAnnotations().getOrDefault(SmsliceApi.CLAIM_ANNOTATION, "-");
    RunningWorkloads.Entry entry =
        new RunningWorkloads.Entry(
            name, claim, args.isEmpty() ? "-" : args.getFirst(), listener.started(name, args));
    running.add(entry);
    List<String> command = new ArrayList<>(List.of(python));
    args.stream().map(a -> rewrite(a, pod)).forEach(command::add);
    Process process;
    try {
      if (container.getCommand() != null && !container.getCommand().isEmpty()) {
        throw new IOException("the demo runs the image's entrypoint (python3) only, not a command");
      }
      if (args.isEmpty() || !Files.isRegularFile(workdir.resolve(args.getFirst()))) {
        throw new IOException(
            "no script " + (args.isEmpty() ? "named" : args.getFirst()) + " in " + workdir);
      }
      ProcessBuilder builder =
          new ProcessBuilder(command).directory(workdir.toFile()).redirectErrorStream(true);
      environment(builder.environment(), launch);
      process = builder.start();
    } catch (IOException e) {
      entry.state = "failed to start: " + e.getMessage();
      log.accept("runtime: " + name + " failed to start: " + e.getMessage());
      return () -> false;
    }
    processes.add(process);
    entry.state = "pid " + process.pid() + " started";
    log.accept("runtime: " + name + ": pid " + process.pid() + " " + String.join(" ", command));
    Thread.ofPlatform().daemon().name("out-" + name).start(() -> follow(process, entry));
    Thread.ofPlatform().daemon().name("stop-" + name).start(() -> stopWhenAsked(process));
    return () -> {
      int code = process.waitFor();
      // Stopped by the demo: SIGTERM ends the models and co-tenant with 0, the voter with 143.
      boolean ok = code == 0 || (stopping.getAsBoolean() && code == 143);
      entry.state = entry.state + "; exited " + code;
      if (!ok) {
        log.accept("runtime: " + name + " exited " + code + "; its output: " + logOf(name));
      }
      return ok;
    };
  }

  /** The container's environment: this machine's, the image's, its own, then Allocate's. */
  private void environment(Map<String, String> env, Launch launch) {
    env.keySet().removeIf(k -> ALLOCATE_ONLY.contains(k) || k.startsWith("SMSLICE_"));
    env.put("PYTHONUNBUFFERED", "1");
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    if (launch.container().getEnv() != null) {
      launch.container().getEnv().forEach(v -> env.put(v.getName(), v.getValue()));
    }
    launch.envs().forEach((k, v) -> env.put(k, launch.hostPath(v)));
    String gpu = launch.envs().get("NVIDIA_VISIBLE_DEVICES");
    if (gpu != null) {
      env.put("CUDA_VISIBLE_DEVICES", gpu);
    }
  }

  /** An argument with Service addresses and the pod's own listening address made loopback. */
  private String rewrite(String arg, Pod pod) {
    String out = arg;
    for (Exposed e : exposed) {
      int port = e.port().getPort();
      int target =
          e.port().getTargetPort() == null || e.port().getTargetPort().getIntVal() == null
              ? port
              : e.port().getTargetPort().getIntVal();
      out =
          out.replace(
              e.service().getMetadata().getName() + ":" + port, "127.0.0.1:" + e.proxy().port());
      if (selects(e.service(), pod)) {
        out = out.replace("0.0.0.0:" + target, "127.0.0.1:" + e.podPort());
      }
    }
    return out;
  }

  private static boolean selects(Service service, Pod pod) {
    Map<String, String> selector = service.getSpec().getSelector();
    Map<String, String> labels = pod.getMetadata().getLabels();
    return selector != null
        && !selector.isEmpty()
        && labels != null
        && labels.entrySet().containsAll(selector.entrySet());
  }

  /** Copies the process's output to its log file and shows its latest line as the pod's state. */
  private void follow(Process process, RunningWorkloads.Entry entry) {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BufferedWriter out = Files.newBufferedWriter(logs.resolve(entry.pod + ".log"))) {
      String line;
      while ((line = in.readLine()) != null) {
        out.write(line);
        out.newLine();
        out.flush();
        String state = listener.line(entry.pod, line);
        entry.state =
            "pid " + process.pid() + ": " + (state != null ? state : abbreviate(line.strip()));
      }
    } catch (IOException e) {
      log.accept("runtime: output of " + entry.pod + ": " + e.getMessage());
    }
  }

  private void stopWhenAsked(Process process) {
    try {
      while (process.isAlive() && !stopping.getAsBoolean()) {
        Thread.sleep(100);
      }
      stop(process);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * SIGTERM, as the kubelet stops a container, then SIGKILL after a grace period. Only one SIGTERM:
   * a second one, arriving while Python shuts down, would kill it before it finishes cleanly.
   */
  private void stop(Process process) throws InterruptedException {
    if (terminated.add(process)) {
      process.destroy();
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }

  private String logOf(String pod) {
    try {
      List<String> lines = Files.readAllLines(logs.resolve(pod + ".log"));
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static String abbreviate(String line) {
    return line.length() <= 110 ? line : line.substring(0, 107) + "...";
  }

  private static int freeUdpPort() throws IOException {
    try (DatagramSocket s =
        new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      return s.getLocalPort();
    }
  }

  /** Stops every process still running and the Services' forwarding. */
  @Override
  public void close() throws InterruptedException {
    for (Process p : processes) {
      if (p.isAlive()) {
        stop(p);
      }
    }
    for (Exposed e : exposed) {
      e.proxy().close();
    }
  }
}
