package io.smslice.node.mps;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon manager against a fake control program (a shell script) that behaves like one. */
class MpsDaemonManagerTest {
  private static final String GPU = "GPU-11111111-2222-3333-4444-555555555555";

  @TempDir Path tmp;

  @Test
  void startsWatchesRestartsAndQuitsTheDaemon() throws Exception {
    NodeFixture fixture = new NodeFixture(tmp);
    List<String> command = fixture.config.mpsControlCommand();
    NodeMetrics metrics = new NodeMetrics();
    Path mpsRoot = tmp.resolve("mps");
    try (MpsDaemonManager manager = new MpsDaemonManager(command, mpsRoot::resolve, metrics)) {
      manager.start(GPU);
      Path pipe = manager.pipeDirectory(GPU);
      assertThat(pipe).isEqualTo(mpsRoot.resolve(GPU).resolve("pipe"));
      await(() -> Files.exists(pipe.resolve("fake-daemon.pid")));
      assertThat(Files.readString(pipe.resolve("fake-daemon.gpu")).trim()).isEqualTo(GPU);
      assertThat(Files.isDirectory(mpsRoot.resolve(GPU).resolve("log"))).isTrue();
      long first = manager.pid(GPU);

      // The daemon dies: it is started again, as a new process.
      ProcessHandle.of(first).orElseThrow().destroyForcibly();
      await(() -> manager.running(GPU) && manager.pid(GPU) != first);
      assertThat(metrics.counter("smslice_node_mps_daemon_starts_total", "gpu=\"" + GPU + "\""))
          .isEqualTo(2);

      // restart() (MpsServers) quits the daemon through the control program and starts another.
      long second = manager.pid(GPU);
      manager.restart(GPU);
      assertThat(manager.running(GPU)).isTrue();
      assertThat(manager.pid(GPU)).isNotEqualTo(second);
      assertThat(ProcessHandle.of(second).map(ProcessHandle::isAlive).orElse(false)).isFalse();

      long third = manager.pid(GPU);
      manager.close();
      await(() -> ProcessHandle.of(third).map(h -> !h.isAlive()).orElse(true));
      Thread.sleep(700); // longer than the first back-off: a quit daemon is not started again
      assertThat(manager.running(GPU)).isFalse();
    }
  }

  @Test
  void restartReturnsOnceTheNewDaemonTakesClients() throws Exception {
    NodeFixture fixture = new NodeFixture(tmp);
    List<String> command = fixture.config.mpsControlCommand();
    try (MpsDaemonManager manager =
        new MpsDaemonManager(command, tmp.resolve("mps")::resolve, new NodeMetrics())) {
      manager.start(GPU);
      manager.awaitReady(GPU, Duration.ofSeconds(10));
      Path control = manager.pipeDirectory(GPU).resolve("control");
      assertThat(control).exists();

      // The next daemon makes its pipe only after a second: workers started before would miss it.
      Files.writeString(Path.of(command.getFirst()).resolveSibling("fake-mps-start-delay"), "1");
      manager.restart(GPU);
      assertThat(control).exists();
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(20);
    }
  }
}
