package io.smslice.client;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Request/answer frames on the claim socket. */
final class ControlChannel implements AutoCloseable {
  private static final int MAX_REPLY_BYTES = 1 << 20;

  private final SocketChannel channel;

  private ControlChannel(SocketChannel channel) {
    this.channel = channel;
  }

  static ControlChannel connect(Path socket) {
    try {
      SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
      channel.connect(UnixDomainSocketAddress.of(socket));
      return new ControlChannel(channel);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to the smslice agent at " + socket, e);
    }
  }

  /** Sends a request and returns the OK answer's payload, or throws the agent's refusal. */
  synchronized ByteBuffer call(Op op, ByteBuffer payload) {
    try {
      Frames.write(channel, op.code, payload);
      ByteBuffer reply = Frames.read(channel, MAX_REPLY_BYTES);
      if (reply == null) {
        throw new DeviceLostException(Status.DEVICE_LOST, "the agent closed the session");
      }
      Status status = Status.of(reply.get());
      if (status != Status.OK) {
        throw SmsliceException.of(status, StandardCharsets.UTF_8.decode(reply).toString());
      }
      return reply;
    } catch (IOException e) {
      throw new DeviceLostException(Status.DEVICE_LOST, "connection to the agent lost: " + e);
    }
  }

  /**
   * Whether the agent still holds the connection, without waiting: the agent sends nothing unasked,
   * so end of stream (or any unasked byte) means the session is over.
   */
  synchronized boolean peerOpen() {
    try {
      channel.configureBlocking(false);
      try {
        return channel.read(ByteBuffer.allocate(1)) == 0;
      } finally {
        channel.configureBlocking(true);
      }
    } catch (IOException e) {
      return false;
    }
  }

  /** A request without an answer. */
  synchronized void send(Op op) {
    try {
      Frames.write(channel, op.code, ByteBuffer.allocate(0));
    } catch (IOException e) {
      throw new DeviceLostException(Status.DEVICE_LOST, "connection to the agent lost: " + e);
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      // Closing a dead connection.
    }
  }
}
