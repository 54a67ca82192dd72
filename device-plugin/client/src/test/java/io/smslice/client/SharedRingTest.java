package io.smslice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The tenant's ring waits end, whatever the agent does (issue 11, finding 11). */
class SharedRingTest {
  final MemorySegment memory = Arena.ofAuto().allocate(SharedLayout.DATA_OFFSET + 4096, 64);

  @Test
  void aWaitForAnExecutorThatNeverAnswersEndsAtTheTimeout() {
    SharedRing ring = new SharedRing(memory, () -> {}, () -> true, Duration.ofMillis(200));
    long seq = ring.publish();

    long start = System.nanoTime();
    SmsliceException e =
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> catchWait(() -> ring.await(seq)));

    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(e).hasMessageContaining("waited 200 ms for operation #0");
    assertThat((System.nanoTime() - start) / 1e6).isBetween(190.0, 5000.0);
  }

  @Test
  void aWaitEndsSoonAfterTheAgentClosesTheConnection() {
    AtomicBoolean connected = new AtomicBoolean(true);
    SharedRing ring = new SharedRing(memory, () -> {}, connected::get, Duration.ofMinutes(5));
    long seq = ring.publish();
    Thread.ofPlatform().start(() -> sleepThen(100, () -> connected.set(false)));

    SmsliceException e =
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> catchWait(() -> ring.await(seq)));

    assertThat(e).isInstanceOf(DeviceLostException.class);
    assertThat(e).hasMessageContaining("the agent closed the session");
  }

  @Test
  void progressKeepsALongWaitAlive() {
    SharedRing ring = new SharedRing(memory, () -> {}, () -> true, Duration.ofMillis(300));
    SharedCounters counters = new SharedCounters(memory);
    long last = 0;
    for (int i = 0; i < 10; i++) {
      last = ring.publish();
    }
    long target = last;
    Thread.ofPlatform()
        .start(
            () -> {
              for (long done = 1; done <= target + 1; done++) {
                long value = done;
                sleepThen(100, () -> counters.putLong(SharedLayout.COMPLETED, value));
              }
            });

    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> ring.await(target));
  }

  @Test
  void aFullRingWaitsNoLongerThanTheTimeout() {
    SharedRing ring = new SharedRing(memory, () -> {}, () -> true, Duration.ofMillis(200));
    for (int i = 0; i < SharedLayout.RING_RECORDS; i++) {
      ring.next();
      ring.publish();
    }

    SmsliceException e =
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> catchWait(ring::next));

    assertThat(e).hasMessageContaining("a free ring slot");
  }

  @Test
  void theTimeoutComesFromTheEnvironmentOrTheDefault() {
    if (System.getenv("SMSLICE_WAIT_TIMEOUT_SECONDS") == null) {
      assertThat(SharedRing.configuredWaitTimeout()).isEqualTo(SharedRing.DEFAULT_WAIT_TIMEOUT);
    }
  }

  private static SmsliceException catchWait(Runnable wait) {
    try {
      wait.run();
    } catch (SmsliceException e) {
      return e;
    }
    throw new AssertionError("the wait ended without an error");
  }

  private static void sleepThen(long millis, Runnable then) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    then.run();
  }
}
