package io.smslice.agent;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An interposer's ATTACH, byte by byte: the connection stays open as the registration. */
final class RawAttach implements AutoCloseable {
  final SocketChannel channel;
  final Status status;
  final ByteBuffer answer;

  private RawAttach(SocketChannel channel, Status status, ByteBuffer answer) {
    this.channel = channel;
    this.status = status;
    this.answer = answer;
  }

  /** This process's own pid, first cgroup line and command name. */
  static RawAttach self(Path socket, String claim, String token) throws IOException {
    String cgroup = Files.readAllLines(Path.of("/proc/self/cgroup")).getFirst();
    return open(socket, payload(claim, token, (int) ProcessHandle.current().pid(), cgroup, "java"));
  }

  static ByteBuffer payload(String claim, String token, int pid, String cgroup, String command) {
    ByteBuffer payload = ByteBuffer.allocate(4096);
    Frames.putString(payload, claim);
    Frames.putString(payload, token);
    payload.putInt(pid);
    Frames.putString(payload, cgroup);
    Frames.putString(payload, command);
    return payload.flip();
  }

  static RawAttach open(Path socket, ByteBuffer payload) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket));
    Frames.write(channel, Op.ATTACH.code, payload);
    ByteBuffer reply = Frames.read(channel, 1 << 16);
    if (reply == null) {
      channel.close();
      throw new IOException("the agent closed the connection without an answer");
    }
    return new RawAttach(channel, Status.of(reply.get()), reply.slice());
  }

  String message() {
    return StandardCharsets.UTF_8.decode(answer.duplicate()).toString();
  }

  /** The OK answer, decoded. */
  record Slice(String gpu, int minPartition, int splitEntries, List<Integer> groups, int sms) {}

  Slice slice() {
    ByteBuffer in = answer.duplicate();
    String gpu = Frames.getString(in);
    int min = in.getInt();
    int entries = in.getInt();
    int count = in.getInt();
    List<Integer> groups = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      groups.add(in.getInt());
    }
    int sms = in.getInt();
    if (in.hasRemaining()) {
      throw new IllegalStateException(in.remaining() + " trailing bytes in the ATTACH answer");
    }
    return new Slice(gpu, min, entries, groups, sms);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
