package io.smslice.agent.server;

import io.smslice.agent.transparent.AttachedProcesses;
import io.smslice.agent.transparent.HostPids;
import io.smslice.agent.transparent.SliceGeometry;
import io.smslice.gpu.simulated.SimulatedBackend;
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
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A claim's runtime and socket on the simulated backend, built piece by piece so tests can inject
 * accept failures and limits; plus a raw tenant's helpers.
 */
final class ServerFixture implements AutoCloseable {
  static final String TOKEN = "secret-token";

  final SimulatedBackend backend = SimulatedBackend.h200(1);
  final String gpu = backend.devices().getFirst().uuid();
  final Path directory;
  final SessionDirectory sessions;
  final ClaimRuntime runtime;
  final ClaimSocket socket;

  ServerFixture(
      Path root,
      String name,
      int maxSessions,
      ConnectionLimits limits,
      ClaimRuntime.FaultListener faults,
      TokenCheck tokens,
      UnaryOperator<ClaimSocket.Acceptor> wrap)
      throws Exception {
    directory = Files.createDirectories(root.resolve(name));
    sessions = SessionDirectory.open(directory, "s");
    runtime =
        ClaimRuntime.start(
            "team/" + name,
            backend,
            gpu,
            List.of(0, 1),
            1 << 20,
            new ClaimRuntime.Limits(sessions, 1 << 20, maxSessions),
            faults);
    socket =
        ClaimSocket.open(
            directory.resolve("agent.sock"),
            new ClaimSocket.Identity("team/" + name, "simulated", true),
            tokens,
            runtime,
            1 << 20,
            new ClaimSocket.Transparent(
                new AttachedProcesses(limits.maxAttached(), HostPids.system(), Clock.systemUTC()),
                () -> new SliceGeometry(gpu, 8, 16, List.of(0, 1), 16),
                null),
            limits,
            wrap);
  }

  ServerFixture(Path root, String name, ConnectionLimits limits) throws Exception {
    this(root, name, 8, limits, r -> true, TOKEN::equals, UnaryOperator.identity());
  }

  SocketChannel connect() throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket.path()));
    return channel;
  }

  /** A connection that said HELLO; the answer's status and payload. */
  record Answer(Status status, ByteBuffer payload) {
    String message() {
      return StandardCharsets.UTF_8.decode(payload.duplicate()).toString();
    }
  }

  static void hello(SocketChannel channel, String claim, String token) throws IOException {
    ByteBuffer hello = ByteBuffer.allocate(512);
    Frames.putString(hello, claim);
    Frames.putString(hello, token);
    Frames.write(channel, Op.HELLO.code, hello.flip());
  }

  /** Reads one answer, failing after 5 s instead of hanging. */
  static Answer answer(SocketChannel channel) throws Exception {
    ByteBuffer reply =
        CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return Frames.read(channel, 1 << 20);
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .get(5, TimeUnit.SECONDS);
    if (reply == null) {
      return null;
    }
    return new Answer(Status.of(reply.get()), reply.slice());
  }

  /** Whether the agent closed the connection within 5 s (reading what it sends meanwhile). */
  static boolean closedByAgent(SocketChannel channel) throws Exception {
    return CompletableFuture.supplyAsync(
            () -> {
              ByteBuffer sink = ByteBuffer.allocate(4096);
              try {
                while (channel.read(sink.clear()) >= 0) {
                  // Drained.
                }
                return true;
              } catch (IOException e) {
                return true;
              }
            })
        .get(5, TimeUnit.SECONDS);
  }

  long sessionFiles() throws IOException {
    try (var files = Files.list(directory.resolve("s"))) {
      return files.count();
    }
  }

  @Override
  public void close() throws Exception {
    socket.close();
    runtime.close();
    sessions.close();
  }
}
