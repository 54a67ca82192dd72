package io.smslice.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node serves every claim with an executor thread, and most claims sit idle most of the time: an
 * idle executor must sleep, not poll. (It used to spin 0.2 ms after every 10 ms sleep: 2% of a core
 * per claim, which a hundred claims on a two-core node turned into prepares the kubelet timed out.)
 */
class IdleClaimCpuTest {
  @TempDir Path root;

  @Test
  void anIdleClaimsExecutorUsesUnderHalfAPercentOfACore() throws Exception {
    try (ServerFixture server =
        new ServerFixture(
            root,
            "idle",
            new ConnectionLimits(4096, 4, Duration.ofMillis(300), 8, Duration.ZERO))) {
      Thread executor =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.getName().equals("claim-team/idle"))
              .findFirst()
              .orElseThrow();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      Thread.sleep(500);
      long cpuBefore = threads.getThreadCpuTime(executor.threadId());
      long wallBefore = System.nanoTime();
      Thread.sleep(2000);
      long cpu = threads.getThreadCpuTime(executor.threadId()) - cpuBefore;
      long wall = System.nanoTime() - wallBefore;
      assertThat((double) cpu / wall)
          .as("share of a core the idle executor used")
          .isLessThan(0.005);
    }
  }
}
