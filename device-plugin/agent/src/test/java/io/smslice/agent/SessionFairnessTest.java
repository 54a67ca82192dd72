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
