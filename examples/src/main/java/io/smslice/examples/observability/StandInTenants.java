package io.smslice.examples.observability;

import io.smslice.agent.Agent;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.SimulatedNvml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@link StandInTenant} processes of a run, and what the simulated NVML lists for them: each
 * live process with the device memory it reported allocating.
 */
final class StandInTenants implements AutoCloseable {
  private record Spec(
      Agent agent,
      String namespace,
      String claim,
      String priority,
      Path guard,
      long mib,
      long cycles,
      long periodMicros) {}

  private record Running(Spec spec, Process process, Path report) {}

  private final Path directory;
  private final String gpu;
  private final SimulatedNvml nvml;
  private final List<Running> running = new ArrayList<>();
  private int started;

  StandInTenants(Path directory, String gpu, SimulatedNvml nvml) throws IOException {
    this.directory = Files.createDirectories(directory);
    this.gpu = gpu;
    this.nvml = nvml;
  }

  synchronized void add(
      Agent agent,
      String namespace,
      String claim,
      String priority,
      Path guard,
      long mib,
      long cycles,
      long periodMicros)
      throws IOException {
    start(new Spec(agent, namespace, claim, priority, guard, mib, cycles, periodMicros));
  }

  private void start(Spec s) throws IOException {
    int n = ++started;
    Path report = directory.resolve("tenant-" + n + ".memory");
    String token = s.agent().issueToken(s.namespace(), s.claim(), "pod-" + n, "main");
    Path socket = s.agent().endpoint(s.namespace(), s.claim()).orElseThrow().socket();
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p =
        new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                StandInTenant.class.getName(),
                socket.toString(),
                s.namespace() + "/" + s.claim(),
                token,
                s.priority(),
                s.guard().toString(),
                Long.toString(s.mib()),
                Long.toString(s.cycles()),
                Long.toString(s.periodMicros()),
                report.toString())
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve("tenant-" + n + ".log").toFile())
            .start();
    running.add(new Running(s, p, report));
    ObservedNode.log("stand-in tenant pid " + p.pid() + " for " + s.namespace() + "/" + s.claim());
  }

  /** Lists the live processes and their memory in the simulated NVML. */
  synchronized void publish() {
    List<GpuProcess> listed = new ArrayList<>();
    for (Running r : running) {
      if (r.process().isAlive() && Files.exists(r.report())) {
        try {
          listed.add(
              new GpuProcess(
                  (int) r.process().pid(), Long.parseLong(Files.readString(r.report()).strip())));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    nvml.setProcesses(gpu, listed);
  }

  /** Every process stops, as MPS clients do when their server restarts, and a new one starts. */
  synchronized void restart() {
    List<Spec> specs = running.stream().map(Running::spec).toList();
    stopAll();
    publish();
    try {
      for (Spec s : specs) {
        start(s);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void stopAll() {
    for (Running r : running) {
      r.process().destroy();
    }
    for (Running r : running) {
      try {
        if (!r.process().waitFor(5, TimeUnit.SECONDS)) {
          r.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        r.process().destroyForcibly();
      }
    }
    running.clear();
  }

  @Override
  public synchronized void close() {
    stopAll();
  }
}
