package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.RingOp;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MalformedInputTest {
  @TempDir Path directory;
  AgentFixture fixture;
  RawSession session;

  @BeforeEach
  void start() throws Exception {
    fixture = new AgentFixture(directory);
    fixture.serve("det", List.of(0), 1 << 20);
    session =
        RawSession.open(
            fixture.socket("det"), "team/det", fixture.agent.issueToken("team", "det", "p", "c"));
  }

  @AfterEach
  void stop() throws Exception {
    session.close();
    fixture.close();
  }

  @Test
  void oversizeFramesAreRefusedAndTheConnectionClosed() throws Exception {
    ByteBuffer header = ByteBuffer.allocate(5).putInt(2 << 20).put(Op.LOAD_MODULE.code).flip();
    session.channel.write(header);
    ByteBuffer reply = Frames.read(session.channel, 1 << 20);
    assertThat(reply.get()).isEqualTo(Status.TOO_LARGE.code);
    assertThat(StandardCharsets.UTF_8.decode(reply).toString()).contains("limit is 1048576");
    assertThat(Frames.read(session.channel, 1 << 20)).isNull(); // the agent ended the session
  }

  @Test
  void truncatedAndTrailingPayloadsAreBadRequests() throws Exception {
    assertThat(session.call(Op.ALLOC.code, new byte[3])).isEqualTo(Status.BAD_REQUEST.code);
    assertThat(session.call(Op.CREATE_STREAM.code, new byte[4])).isEqualTo(Status.BAD_REQUEST.code);
    assertThat(session.call((byte) 99, new byte[0])).isEqualTo(Status.BAD_REQUEST.code);
    assertThat(session.call(Op.HELLO.code, new byte[0])).isEqualTo(Status.BAD_REQUEST.code);
    // The session still works.
    assertThat(session.call(Op.CREATE_STREAM.code, new byte[0])).isZero();
  }

  @Test
  void badRingRecordsFailAloneAndReportTheirStatus() throws Exception {
    MemorySegment record = Arena.ofAuto().allocate(SharedLayout.RECORD_BYTES);
    record.set(ValueLayout.JAVA_INT, 0, RingOp.LAUNCH);
    record.set(ValueLayout.JAVA_INT, 4, 1000);
    session.publish(record);
    session.drained(5_000_000_000L);
    assertThat(session.memory.get(ValueLayout.JAVA_INT, SharedLayout.ERROR_STATUS))
        .isEqualTo(Status.BAD_REQUEST.code);
    record.set(ValueLayout.JAVA_INT, 0, 4242);
    session.publish(record);
    assertThat(session.drained(5_000_000_000L)).isTrue();
    assertThat(session.counters.getLong(SharedLayout.FAILED_SEQ)).isEqualTo(2);
  }

  @Test
  void aClientThatNeverSaysHelloGetsNothing() throws Exception {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(fixture.socket("det")));
      Frames.write(channel, Op.ALLOC.code, ByteBuffer.allocate(8).putLong(0, 64));
      ByteBuffer reply = Frames.read(channel, 1 << 20);
      assertThat(reply.get()).isEqualTo(Status.UNAUTHORIZED.code);
    }
  }
}
