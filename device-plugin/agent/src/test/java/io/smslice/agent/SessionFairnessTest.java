package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.protocol.Op;
import io.smslice.protocol.RingOp;
import io.smslice.protocol.SharedLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session that queues a backlog of ring records and then a control request must not make another
 * session of the claim wait for the whole backlog. The executor is held in a synchronization while
 * both queue their work, then let go; the backend's log of stream calls shows the order the agent
 * served them in.
 */
class SessionFairnessTest {
  private static final int BACKLOG = 1000;

  @TempDir Path directory;

  @Test
  void aFloodingSessionDelaysAnotherSessionsSyncByOneTurnNotItsBacklog() throws Exception {
    TroubledBackend troubled = new TroubledBackend(0);
    try (AgentFixture fixture = new AgentFixture(directory, troubled.backend())) {
      fixture.serve("det", List.of(0), 1 << 20);
      SmsliceClient holder = fixture.connect("det");
      SmsliceClient victim = fixture.connect("det");
      String token = fixture.agent.issueToken("team", "det", "pod", "flood");
      RawSession flooder = RawSession.open(fixture.socket("det"), "team/det", token);
      flooder.call(Op.CREATE_STREAM.code, new byte[0]);
      flooder.call(Op.ALLOC.code, ByteBuffer.allocate(8).putLong(0, 64 << 10).array());
      Stream holderStream = holder.createStream();
      Stream victimStream = victim.createStream();

      troubled.hangIn("synchronize");
      // A control request that waits for its stream: the executor is held while serving one.
      Thread.ofPlatform().daemon().start(() -> holder.destroy(holderStream));
      assertThat(troubled.hung.await(20, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < BACKLOG; i++) {
        flooder.publish(fill(64 << 10));
      }
      ExecutorService threads = Executors.newFixedThreadPool(2);
      Future<Integer> info = threads.submit(() -> flooder.call(Op.INFO.code, new byte[0]));
      Future<?> sync = threads.submit(() -> victim.synchronize(victimStream));
      // Lets both requests reach the agent; a slower machine only weakens the check before the
      // fix (the flood's control request would not have been queued yet), never after it.
      Thread.sleep(300);
      troubled.streamCalls.clear();
      troubled.endKernel();

      sync.get(20, TimeUnit.SECONDS);
      assertThat(info.get(20, TimeUnit.SECONDS)).isZero();
      // The control request ran after every record its session queued before it.
      assertThat(flooder.counters.getLong(SharedLayout.COMPLETED)).isEqualTo(BACKLOG);
      List<String> calls = new ArrayList<>(troubled.streamCalls);
      int victimSync = calls.indexOf("synchronize");
      assertThat(victimSync).isNotNegative();
      long fillsBeforeSync = calls.subList(0, victimSync).stream().filter("fill"::equals).count();
      assertThat(fillsBeforeSync)
          .as("flood records served before the other session's sync")
          .isLessThanOrEqualTo(2 * 32);
      threads.shutdown();
      flooder.close();
      victim.close();
      holder.close();
    }
  }

  /**
   * Two sessions whose backlogs were queued at once take turns until one runs dry: whichever is
   * served first, the other waits one bounded turn (two when a round ends with one session and the
   * next begins with it), never for the whole backlog.
   */
  @Test
  void twoBackloggedSessionsTakeBoundedTurns() throws Exception {
    TroubledBackend troubled = new TroubledBackend(0);
    try (AgentFixture fixture = new AgentFixture(directory, troubled.backend())) {
      fixture.serve("det", List.of(0), 1 << 20);
      SmsliceClient holder = fixture.connect("det");
      RawSession filler = raw(fixture, "filler", 4096);
      RawSession copier = raw(fixture, "copier", 8192);
      Stream holderStream = holder.createStream();
      troubled.hangIn("synchronize");
      Thread.ofPlatform().daemon().start(() -> holder.destroy(holderStream));
      assertThat(troubled.hung.await(20, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 600; i++) {
        filler.publish(fill(4096));
      }
      for (int i = 0; i < 300; i++) {
        copier.publish(copy(4096));
      }
      troubled.streamCalls.clear();
      troubled.endKernel();
      assertThat(filler.drained(TimeUnit.SECONDS.toNanos(20))).isTrue();
      assertThat(copier.drained(TimeUnit.SECONDS.toNanos(20))).isTrue();

      List<String> calls =
          troubled.streamCalls.stream()
              .filter(c -> c.equals("fill") || c.equals("copyDeviceToDevice"))
              .toList();
      int bothPending =
          Math.min(calls.lastIndexOf("fill"), calls.lastIndexOf("copyDeviceToDevice"));
      int longest = 0;
      int run = 0;
      for (int i = 0; i <= bothPending; i++) {
        run = i > 0 && calls.get(i).equals(calls.get(i - 1)) ? run + 1 : 1;
        longest = Math.max(longest, run);
      }
      assertThat(calls).hasSize(900);
      assertThat(longest)
          .as("records of one session served in a row while the other had some queued")
          .isLessThanOrEqualTo(2 * 32);
      filler.close();
      copier.close();
      holder.close();
    }
  }

  /** A raw session of the claim with stream 1 and a buffer 1 of {@code bytes}. */
  private static RawSession raw(AgentFixture fixture, String name, long bytes) throws Exception {
    String token = fixture.agent.issueToken("team", "det", "pod", name);
    RawSession session = RawSession.open(fixture.socket("det"), "team/det", token);
    session.call(Op.CREATE_STREAM.code, new byte[0]);
    session.call(Op.ALLOC.code, ByteBuffer.allocate(8).putLong(0, bytes).array());
    return session;
  }

  /** Copies the first {@code bytes} of buffer 1 behind themselves, on stream 1. */
  private static MemorySegment copy(long bytes) {
    MemorySegment record = Arena.ofAuto().allocate(SharedLayout.RECORD_BYTES);
    record.set(ValueLayout.JAVA_INT, 0, RingOp.COPY_DEVICE_TO_DEVICE);
    record.set(ValueLayout.JAVA_LONG, 8, 1); // stream
    record.set(ValueLayout.JAVA_LONG, 16, 1); // target buffer
    record.set(ValueLayout.JAVA_LONG, 24, bytes); // target offset
    record.set(ValueLayout.JAVA_LONG, 32, 1); // source buffer
    record.set(ValueLayout.JAVA_LONG, 40, 0); // source offset
    record.set(ValueLayout.JAVA_LONG, 48, bytes);
    return record;
  }

  private static MemorySegment fill(long bytes) {
    MemorySegment record = Arena.ofAuto().allocate(SharedLayout.RECORD_BYTES);
    record.set(ValueLayout.JAVA_INT, 0, RingOp.FILL);
    record.set(ValueLayout.JAVA_LONG, 8, 1); // stream
    record.set(ValueLayout.JAVA_LONG, 16, 1); // buffer
    record.set(ValueLayout.JAVA_LONG, 24, 0); // offset
    record.set(ValueLayout.JAVA_LONG, 32, bytes);
    record.set(ValueLayout.JAVA_LONG, 40, 7); // value
    return record;
  }
}
