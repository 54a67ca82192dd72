package io.smslice.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.Status;
import java.lang.management.ManagementFactory;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node serves every claim with an executor thread, and most claims sit idle most of the time: an
 * idle executor must sleep, not poll. (It used to spin 0.2 ms after every 10 ms sleep, 2% of a core
 * per claim, which a hundred claims on a two-core node turned into prepares the kubelet timed out.)
 * The bounds leave room for a loaded machine.
 */
class IdleClaimCpuTest {
  @TempDir Path root;

  @Test
  void anIdleClaimWithoutSessionsUsesUnderATenthOfAPercentOfACore() throws Exception {
    try (ServerFixture server = server()) {
      assertThat(idleShare()).isLessThan(0.001);
    }
  }

  @Test
  void anIdleClaimWithATenantConnectedUsesUnderOnePercentOfACore() throws Exception {
    try (ServerFixture server = server();
        SocketChannel tenant = server.connect()) {
      ServerFixture.hello(tenant, "team/idle", ServerFixture.TOKEN);
      assertThat(ServerFixture.answer(tenant).status()).isEqualTo(Status.OK);
      assertThat(idleShare()).isLessThan(0.01);
    }
  }

  private ServerFixture server() throws Exception {
    return new ServerFixture(
        root, "idle", new ConnectionLimits(4096, 4, Duration.ofMillis(300), 8, Duration.ZERO));
  }

  /**
   * The share of a core the claim's executor used over two idle seconds, after three (its sleep
   * path compiled: interpreted, each wake costs the connected case ~0.1 ms).
   */
  private static double idleShare() throws InterruptedException {
    Thread executor =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("claim-team/idle"))
            .findFirst()
            .orElseThrow();
    var threads = ManagementFactory.getThreadMXBean();
    Thread.sleep(3000);
    long cpuBefore = threads.getThreadCpuTime(executor.threadId());
    long wallBefore = System.nanoTime();
    Thread.sleep(2000);
    long cpu = threads.getThreadCpuTime(executor.threadId()) - cpuBefore;
    return (double) cpu / (System.nanoTime() - wallBefore);
  }
}
