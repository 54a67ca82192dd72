package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.GuardLayout;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent executor's best-effort slot clears the busy mark of a latency-critical owner that died
 * with work in flight (a real process, killed), once, and is held by it no more.
 */
class ClaimGuardDeadOwnerTest {
  @TempDir Path dir;

  @Test
  void aBestEffortExecutorClearsADeadOwnersBusyMarkOnce() throws Exception {
    Path file = dir.resolve("guard");
    GpuGuard.Settings settings =
        new GpuGuard.Settings(Duration.ofMillis(200), 1.0, Duration.ofSeconds(1), 4, Duration.ZERO);
    try (GpuGuard gpu = GpuGuard.create(file, settings)) {
      gpu.enable(true);
      Process owner =
          new ProcessBuilder(
                  ProcessHandle.current().info().command().orElseThrow(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  BusyOwner.class.getName(),
                  file.toString(),
                  "0")
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      try (BufferedReader out = new BufferedReader(new InputStreamReader(owner.getInputStream()))) {
        assertThat(out.readLine()).isEqualTo("busy");
      }
      assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isEqualTo(1);
      ClaimGuard alive = gpu.join("batch/trainer", GuardLayout.ROLE_BEST_EFFORT).orElseThrow();
      alive.beforeQueue();
      assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET))
          .as("a live owner's mark stays")
          .isEqualTo(1);

      assertThat(gpu.slots())
          .filteredOn(s -> s.role() == GuardLayout.ROLE_LATENCY_CRITICAL)
          .singleElement()
          .satisfies(s -> assertThat(s.busy()).isTrue());

      owner.destroyForcibly(); // SIGKILL
      assertThat(owner.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(gpu.slots())
          .as("the metrics' view: a dead owner's mark is not work in flight")
          .filteredOn(s -> s.role() == GuardLayout.ROLE_LATENCY_CRITICAL)
          .allSatisfy(s -> assertThat(s.busy()).isFalse());
      assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).as("until a waiter clears it").isOne();
      long start = System.nanoTime();
      alive.beforeQueue();
      ClaimGuard other = gpu.join("batch/other", GuardLayout.ROLE_BEST_EFFORT).orElseThrow();
      other.beforeQueue();

      assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(1).toNanos());
      assertThat(gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET)).isZero();
      assertThat(gpu.slots())
          .filteredOn(s -> s.role() == GuardLayout.ROLE_LATENCY_CRITICAL)
          .allSatisfy(s -> assertThat(s.busy()).isFalse());
      alive.close();
      other.close();
    }
  }
}
