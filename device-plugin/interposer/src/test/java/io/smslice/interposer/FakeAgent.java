package io.smslice.interposer;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * Plays the claim's agent on a real Unix socket: reads each connection's first frame as ATTACH
 * (docs/tenant-protocol.md), records it, and answers what the test asks for. Connections stay open
 * until the agent closes, as the real agent keeps a transparent process's registration.
 */
final class FakeAgent implements AutoCloseable {
  static final int OK = 0;
  static final int BAD_REQUEST = 1;
  static final int UNAUTHORIZED = 2;
  static final int UNAVAILABLE = 10;

  /** One ATTACH request as the agent read it. */
  record Attach(int op, String claim, String token, int pid, String cgroup, String command) {}

  private final ServerSocketChannel server;
  private final List<Attach> attaches = new CopyOnWriteArrayList<>();
  private final List<SocketChannel> connections = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private final boolean closeAfterAnswer;
  private volatile boolean hangUpAtOnce;

  /** {@code answer} gives the whole answer frame's body (status + payload), or null to hang up. */
  FakeAgent(Path socket, Function<Attach, byte[]> answer) throws IOException {
    this(socket, answer, false);
  }

  /** With {@code closeAfterAnswer}, ends each registration right after answering it. */
  FakeAgent(Path socket, Function<Attach, byte[]> answer, boolean closeAfterAnswer)
      throws IOException {
    this.closeAfterAnswer = closeAfterAnswer;
    Files.deleteIfExists(socket);
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    acceptor = Thread.ofVirtual().start(() -> serve(answer));
  }

  /**
   * An agent that closes every connection as soon as it accepts it, before reading anything (as the
   * real one does over its limit of connections that have not authenticated, or stopping).
   */
  static FakeAgent hangingUpAtOnce(Path socket) throws IOException {
    FakeAgent agent = new FakeAgent(socket, a -> null);
    agent.hangUpAtOnce = true;
    return agent;
  }

  List<Attach> attaches() {
    return List.copyOf(attaches);
  }

  /** "attach PID" and "closed PID" (the process ended its registration), in order. */
  List<String> events() {
    return List.copyOf(events);
  }

  private void serve(Function<Attach, byte[]> answer) {
    while (server.isOpen()) {
      try {
        SocketChannel connection = server.accept();
        if (hangUpAtOnce) {
          events.add("hung up");
          connection.close();
          continue;
        }
        connections.add(connection);
        Thread.ofVirtual().start(() -> answerOne(connection, answer));
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void answerOne(SocketChannel connection, Function<Attach, byte[]> answer) {
    try {
      DataInputStream in = new DataInputStream(Channels.newInputStream(connection));
      byte[] frame = new byte[in.readInt()];
      in.readFully(frame);
      ByteBuffer b = ByteBuffer.wrap(frame);
      int op = b.get();
      Attach attach = new Attach(op, string(b), string(b), b.getInt(), string(b), string(b));
      attaches.add(attach);
      events.add("attach " + attach.pid());
      byte[] body = answer.apply(attach);
      if (body == null) {
        connection.close();
        return;
      }
      ByteBuffer out = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip();
      while (out.hasRemaining()) connection.write(out);
      if (closeAfterAnswer) {
        connection.close();
        return;
      }
      while (in.read() >= 0) {
        // A registration carries nothing after the answer: wait for its end.
      }
      events.add("closed " + attach.pid());
    } catch (IOException | RuntimeException e) {
      // The process went away mid-frame: nothing to answer.
    }
  }

  private static String string(ByteBuffer b) {
    byte[] bytes = new byte[Short.toUnsignedInt(b.getShort())];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** An OK answer: GPU uuid, min partition, split entries, group ids, SMs. */
  static byte[] ok(String uuid, int minPartition, int splitEntries, int[] groups, int sms) {
    byte[] id = uuid.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 2 + id.length + 12 + 4 * groups.length + 4);
    b.put((byte) OK).putShort((short) id.length).put(id);
    b.putInt(minPartition).putInt(splitEntries).putInt(groups.length);
    for (int g : groups) b.putInt(g);
    return b.putInt(sms).array();
  }

  static byte[] error(int status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + text.length).put((byte) status).put(text).array();
  }

  @Override
  public void close() {
    try {
      server.close();
      for (SocketChannel c : connections) c.close();
      acceptor.join(2000);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
