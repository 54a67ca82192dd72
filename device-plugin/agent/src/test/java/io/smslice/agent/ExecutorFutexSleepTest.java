package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.smslice.client.SmsliceClient;
import io.smslice.protocol.Futex;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle executor with one session sleeps on that session's AGENT_SLEEPING word (3), so that its
 * tenant wakes it directly; with more sessions it parks (1) and tenants ring the DOORBELL frame.
 * Requests and DOORBELL frames wake it either way.
 */
class ExecutorFutexSleepTest {
  @TempDir Path directory;

  @Test
  void anIdleExecutorOfOneSessionSleepsOnItsFlagAndMoreSessionsMakeItPark() throws Exception {
    assumeTrue(Futex.available(), "futexes (Linux on x86-64 or aarch64)");
    try (AgentFixture fixture = new AgentFixture(directory)) {
      fixture.serve("det", List.of(0), 1 << 20);
      String token = fixture.agent.issueToken("team", "det", "pod", "main");
      try (RawSession one = RawSession.open(fixture.socket("det"), "team/det", token)) {
        awaitFlag(one, 3);

        // A control request wakes it (through the agent's own wake-up) and it sleeps again.
        assertThat(one.call(Op.CREATE_STREAM.code, new byte[0])).isZero();
        awaitFlag(one, 3);

        try (SmsliceClient second = fixture.connect("det")) {
          second.createStream();
          awaitFlag(one, 1);
          // The client's queued work wakes the parked executor through the DOORBELL frame.
          second.synchronize(second.createStream());
        }
        awaitFlag(one, 3);
      }
    }
  }

  private static void awaitFlag(RawSession session, int value) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (session.counters.getInt(SharedLayout.AGENT_SLEEPING) != value) {
      assertThat(System.nanoTime()).as("AGENT_SLEEPING to become " + value).isLessThan(deadline);
      Thread.sleep(1);
    }
  }
}
