package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.smslice.protocol.Futex;
import io.smslice.protocol.Op;
import io.smslice.protocol.RingOp;
import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant that sleeps on COMPLETED (the client library does once a wait outlasts its short spin)
 * is woken by the agent when its work completes and when its session ends; it does not have to
 * poll. Each sleep here is far longer than the test may take, so a missing wake-up shows as a long
 * wait.
 */
class SleepingTenantTest {
  private static final long SLEEP_NANOS = 10_000_000_000L;
  private static final long WOKEN_WITHIN_NANOS = 5_000_000_000L;

  @TempDir Path directory;

  @Test
  void theAgentWakesASleepingTenantWhenItsSyncCompletes() throws Exception {
    assumeTrue(Futex.available(), "futexes (Linux on x86-64 or aarch64)");
    TroubledBackend troubled = new TroubledBackend(0);
    try (AgentFixture fixture = new AgentFixture(directory, troubled.backend());
        RawSession session = open(fixture)) {
      assertThat(session.call(Op.CREATE_STREAM.code, new byte[0])).isZero();
      troubled.hangIn("synchronize");

      // The sync is held on the GPU until the tenant sleeps (a slower machine only weakens the
      // check before the fix: the tenant would find it completed without sleeping).
      long before =
          sleepUntilChanged(
              session,
              () -> {
                session.publish(syncStream());
                Thread.ofPlatform()
                    .daemon()
                    .start(
                        () -> {
                          try {
                            troubled.hung.await();
                            Thread.sleep(300);
                          } catch (InterruptedException e) {
                            return;
                          }
                          troubled.endKernel();
                        });
              });

      assertThat(session.counters.getLong(SharedLayout.COMPLETED)).isGreaterThan(before);
    }
  }

  @Test
  void theAgentWakesASleepingTenantWhenItsSessionEnds() throws Exception {
    assumeTrue(Futex.available(), "futexes (Linux on x86-64 or aarch64)");
    try (AgentFixture fixture = new AgentFixture(directory);
        RawSession session = open(fixture)) {
      sleepUntilChanged(
          session,
          () ->
              Thread.ofPlatform()
                  .daemon()
                  .start(
                      () -> {
                        try {
                          Thread.sleep(300);
                        } catch (InterruptedException e) {
                          return;
                        }
                        fixture.agent.release("team", "det");
                      }));

      assertThat(session.counters.getInt(SharedLayout.SESSION_STATE)).isNotZero();
    }
  }

  private static RawSession open(AgentFixture fixture) throws Exception {
    fixture.serve("det", List.of(0), 1 << 20);
    String token = fixture.agent.issueToken("team", "det", "pod", "main");
    return RawSession.open(fixture.socket("det"), "team/det", token);
  }

  /**
   * Announces a sleep as the client library does, lets {@code then} happen, and sleeps on
   * COMPLETED; fails if no wake-up came. Returns the COMPLETED value slept on.
   */
  private static long sleepUntilChanged(RawSession session, ThrowingRunnable then)
      throws Exception {
    SharedCounters counters = session.counters;
    counters.putInt(SharedLayout.TENANT_SLEEPING, 1);
    SharedCounters.fence();
    long completed = counters.getLong(SharedLayout.COMPLETED);
    then.run();
    if (counters.getInt(SharedLayout.AGENT_SLEEPING) != 0) {
      session.call(Op.DOORBELL.code, new byte[0]);
    }
    long start = System.nanoTime();
    Futex.await(session.memory, SharedLayout.COMPLETED, (int) completed, SLEEP_NANOS);
    assertThat(System.nanoTime() - start)
        .as("nanoseconds asleep (the agent never woke the tenant if this is the whole sleep)")
        .isLessThan(WOKEN_WITHIN_NANOS);
    return completed;
  }

  private static MemorySegment syncStream() {
    MemorySegment record = Arena.ofAuto().allocate(SharedLayout.RECORD_BYTES);
    record.set(ValueLayout.JAVA_INT, 0, RingOp.SYNC_STREAM);
    record.set(ValueLayout.JAVA_LONG, 8, 1); // the stream made above
    return record;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
