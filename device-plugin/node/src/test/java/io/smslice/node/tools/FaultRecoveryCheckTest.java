package io.smslice.node.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.client.SmsliceClient;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU check's wiring, with real agent worker processes on the simulated backend, the node's MPS
 * daemon manager driving a fake control program, and Xids injected into the simulated NVML: an
 * application Xid stops the claim's worker, the recovery ends when the faulted client is gone (or
 * restarts the daemon when it is not), the worker serves again, and each step is in faults.log.
 */
class FaultRecoveryCheckTest {
  private static final int TENANT = 4242;

  @TempDir Path tmp;

  @Test
  void xidsFromNvmlRunTheNodesRecoveryWithTheAgentsWorkersAndTheDaemon() throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    String gpu = backend.devices().getFirst().uuid();
    SimulatedNvml nvml = SimulatedNvml.mirroring(backend.devices());
    Path proc = tmp.resolve("proc");
    Files.createDirectories(proc.resolve(Integer.toString(TENANT)));
    Files.writeString(proc.resolve(Integer.toString(TENANT)).resolve("comm"), "python3\n");
    List<String> mpsCommand = new NodeFixture(tmp.resolve("node")).config.mpsControlCommand();
    Path work = tmp.resolve("work");
    Path pipe = tmp.resolve("mps").resolve("pipe");
    try (FaultRecoveryCheck check =
        FaultRecoveryCheck.start(
            backend,
            nvml,
            mpsCommand,
            proc,
            work,
            tmp.resolve("mps"),
            List.of("victim=0,1"),
            Duration.ofSeconds(3))) {
      assertThat(Files.readString(work.resolve("ready")).strip()).isEqualTo(gpu);
      long daemon = Long.parseLong(Files.readString(pipe.resolve("fake-daemon.pid")).strip());
      Thread recorder =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      check.runUntilStopped();
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  });
      SmsliceClient client = connect(work);
      client.createStream();

      // The faulted tenant exits within the timeout: the daemon is kept.
      nvml.setProcesses(gpu, List.of(new GpuProcess(TENANT, 1)));
      nvml.injectXid(gpu, 31);
      await(() -> log(work).contains("fault xid=31"));
      assertThat(log(work)).contains("nvml-xid xid=31 gpu=" + gpu);
      nvml.setProcesses(gpu, List.of());
      await(() -> log(work).contains("result=clients-exited"));
      assertThat(log(work))
          .containsPattern("recovery xid=31 result=clients-exited seconds=0\\.\\d+");
      assertThat(log(work)).contains("affected=[" + TENANT + "]");
      assertThat(Files.readString(pipe.resolve("fake-daemon.pid")).strip())
          .isEqualTo(Long.toString(daemon));
      // The restarted worker serves the same socket.
      client.reconnect(Duration.ofSeconds(30));
      client.createStream();

      // The tenant keeps running: after the timeout the manager restarts the daemon.
      nvml.setProcesses(gpu, List.of(new GpuProcess(TENANT, 1)));
      nvml.injectXid(gpu, 43);
      await(() -> !daemonPid(pipe).isEmpty() && !daemonPid(pipe).equals(Long.toString(daemon)));
      nvml.setProcesses(gpu, List.of()); // a restarted server ends its stale clients
      await(() -> log(work).contains("result=mps-restarted"));
      assertThat(Files.readString(pipe.resolve("fake-daemon.pid")).strip())
          .isNotEqualTo(Long.toString(daemon));
      client.reconnect(Duration.ofSeconds(30));
      client.createStream();
      client.close();
      Files.writeString(work.resolve("stop"), "");
      recorder.join(10_000);
      assertThat(recorder.isAlive()).isFalse();
    }
    assertThat(Files.exists(pipe.resolve("control"))).as("the daemon quit on close").isFalse();
  }

  private static String daemonPid(Path pipe) {
    try {
      return Files.readString(pipe.resolve("fake-daemon.pid")).strip();
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private static String log(Path work) {
    try {
      return Files.readString(work.resolve("faults.log"));
    } catch (java.io.IOException e) {
      return "";
    }
  }

  /** A client-library session on the claim's socket, as its env file gives it. */
  private static SmsliceClient connect(Path work) throws java.io.IOException {
    Map<String, String> env =
        Files.readAllLines(work.resolve("env").resolve("victim.env")).stream()
            .map(l -> l.substring("export ".length()).split("=", 2))
            .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
    return SmsliceClient.connect(
        Path.of(env.get("SMSLICE_SOCKET")), env.get("SMSLICE_CLAIM"), env.get("SMSLICE_TOKEN"));
  }

  private static void await(BooleanSupplier condition) throws Exception {
    Instant deadline = Instant.now().plusSeconds(20);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not met within 20 s");
      }
      Thread.sleep(20);
    }
  }
}
