package io.smslice.agent;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A tenant speaking the wire protocol byte by byte, to send what the client library never would.
 */
final class RawSession implements AutoCloseable {
  final SocketChannel channel;
  final MemorySegment memory;
  final SharedCounters counters;
  private final Arena arena = Arena.ofShared();
  private long submitted;

  private RawSession(SocketChannel channel, MemorySegment memory) {
    this.channel = channel;
    this.memory = memory;
    this.counters = new SharedCounters(memory);
  }

  static RawSession open(Path socket, String claim, String token) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket));
    ByteBuffer hello = ByteBuffer.allocate(512);
    Frames.putString(hello, claim);
    Frames.putString(hello, token);
    Frames.write(channel, Op.HELLO.code, hello.flip());
    ByteBuffer reply = Frames.read(channel, 1 << 20);
    if (reply == null || reply.get() != 0) {
      channel.close();
      throw new IOException("HELLO refused");
    }
    reply.getLong();
    reply.getInt();
    reply.getLong();
    reply.get();
    Frames.getString(reply);
    String file = Frames.getString(reply);
    long size = reply.getLong();
    Arena arena = Arena.ofShared();
    try (FileChannel mapped =
        FileChannel.open(
            socket.resolveSibling(file), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      RawSession session =
          new RawSession(channel, mapped.map(FileChannel.MapMode.READ_WRITE, 0, size, arena));
      session.call(Op.MAPPED.code, new byte[0]);
      return session;
    }
  }

  /** Sends a frame; returns the answer's status byte, or -1 for ops that get no answer. */
  int call(byte op, byte[] payload) throws IOException {
    Frames.write(channel, op, ByteBuffer.wrap(payload));
    if (op == Op.DOORBELL.code) {
      return -1;
    }
    ByteBuffer reply = Frames.read(channel, 1 << 20);
    if (reply == null) {
      throw new IOException("closed by the agent");
    }
    return reply.get();
  }

  /** Writes a record into the ring and publishes it. */
  void publish(MemorySegment record) {
    MemorySegment slot =
        memory.asSlice(SharedLayout.recordOffset(submitted), SharedLayout.RECORD_BYTES);
    slot.copyFrom(record);
    counters.putLong(SharedLayout.SUBMITTED, ++submitted);
  }

  /** Waits until the agent has run every published record; false if the session ended. */
  boolean drained(long timeoutNanos) throws IOException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (counters.getLong(SharedLayout.COMPLETED) < submitted) {
      if (counters.getInt(SharedLayout.SESSION_STATE) != 0) {
        return false;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("agent did not complete records within the timeout");
      }
      if (counters.getInt(SharedLayout.AGENT_SLEEPING) != 0) {
        call(Op.DOORBELL.code, new byte[0]);
      }
      Thread.onSpinWait();
    }
    // Acknowledge any error so the next one is reported.
    counters.putLong(SharedLayout.ERROR_ACKNOWLEDGED, counters.getLong(SharedLayout.FAILED_SEQ));
    return counters.getInt(SharedLayout.SESSION_STATE) == 0;
  }

  long submitted() {
    return submitted;
  }

  @Override
  public void close() throws IOException {
    channel.close();
    arena.close();
  }
}
