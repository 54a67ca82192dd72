package io.smslice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.smslice.protocol.Futex;
import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
  void aLongWaitSleepsInsteadOfPolling() throws IOException {
    Path status = Path.of("/proc/thread-self/status");
    assumeTrue(Files.isReadable(status), "needs Linux's per-thread scheduler counts");
    SharedRing ring = new SharedRing(memory, () -> {}, () -> true, Duration.ofMinutes(5));
    SharedCounters counters = new SharedCounters(memory);
    long seq = ring.publish();
    Thread.ofPlatform().start(() -> sleepThen(400, () -> completeAndWake(counters, seq + 1)));

    long before = contextSwitches(status);
    ring.await(seq); // on this thread: it is the one counted (the helper completes it anyway)
    long switches = contextSwitches(status) - before;

    // Polling (yield, then 20 us naps) switched thousands of times in such a wait; on a host with
    // more busy threads than cores each of those delays someone. A sleeping wait wakes for its
    // completion and the agent-liveness checks (every 50 ms) only.
    System.out.println("context switches of a 400 ms ring wait: " + switches);
    assertThat(switches).isLessThan(50);
  }

  /** This thread's context switches so far, from /proc/thread-self/status. */
  private static long contextSwitches(Path status) throws IOException {
    return Files.readAllLines(status).stream()
        .filter(line -> line.contains("ctxt_switches:"))
        .mapToLong(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
        .sum();
  }

  @Test
  void aSleepingTenantSaysSoAndWakesWhenTheAgentCompletes() {
    SharedRing ring = new SharedRing(memory, () -> {}, () -> true, Duration.ofMinutes(5));
    SharedCounters counters = new SharedCounters(memory);
    long seq = ring.publish();
    Thread waiter = Thread.ofPlatform().start(() -> ring.await(seq));

    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> {
          while (counters.getInt(SharedLayout.TENANT_SLEEPING) == 0) {
            Thread.sleep(1);
          }
        });
    completeAndWake(counters, seq + 1);

    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> waiter.join());
    assertThat(counters.getInt(SharedLayout.TENANT_SLEEPING)).isZero();
  }

  @Test
  void aSleepingAgentGetsOneDoorbellPerSleep() {
    AtomicInteger doorbells = new AtomicInteger();
    SharedRing ring =
        new SharedRing(memory, doorbells::incrementAndGet, () -> true, Duration.ofMinutes(5));
    SharedCounters counters = new SharedCounters(memory);

    counters.putInt(SharedLayout.AGENT_SLEEPING, 1);
    for (int i = 0; i < 5; i++) {
      ring.next();
      ring.publish();
    }
    assertThat(doorbells).hasValue(1);

    counters.putInt(SharedLayout.AGENT_SLEEPING, 0); // the agent woke, worked, and sleeps again
    ring.publish();
    counters.putInt(SharedLayout.AGENT_SLEEPING, 1);
    ring.publish();
    ring.publish();
    assertThat(doorbells).hasValue(2);
  }

  @Test
  void anAgentAsleepOnTheFlagIsWokenAsAFutexWithoutTheSocket() throws Exception {
    assumeTrue(Futex.available(), "futexes (Linux on x86-64 or aarch64)");
    AtomicInteger doorbells = new AtomicInteger();
    SharedRing ring =
        new SharedRing(memory, doorbells::incrementAndGet, () -> true, Duration.ofMinutes(5));
    SharedCounters counters = new SharedCounters(memory);
    counters.putInt(SharedLayout.AGENT_SLEEPING, 3);
    long start = System.nanoTime();
    Thread agent =
        Thread.ofPlatform()
            .start(() -> Futex.await(memory, SharedLayout.AGENT_SLEEPING, 3, 10_000_000_000L));
    Thread.sleep(200); // lets the agent's thread fall asleep (a late one returns at once: weaker)

    ring.publish();
    ring.publish();
    agent.join(10_000);

    assertThat(agent.isAlive()).isFalse();
    assertThat(System.nanoTime() - start).as("woken, not timed out").isLessThan(5_000_000_000L);
    assertThat(counters.getInt(SharedLayout.AGENT_SLEEPING)).isEqualTo(2);
    assertThat(doorbells).hasValue(0);
  }

  /** What the agent does after running records: publish COMPLETED, wake a sleeping tenant. */
  private void completeAndWake(SharedCounters counters, long completed) {
    counters.putLong(SharedLayout.COMPLETED, completed);
    SharedCounters.fence();
    if (counters.getInt(SharedLayout.TENANT_SLEEPING) != 0) {
      Futex.wakeAll(memory, SharedLayout.COMPLETED);
    }
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
