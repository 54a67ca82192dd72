package io.smslice.agent.server;

import io.smslice.agent.transparent.AttachRequest;
import io.smslice.agent.transparent.AttachedProcesses;
import io.smslice.agent.transparent.SliceGeometry;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A claim's Unix socket: accepts tenant connections, checks the token in each HELLO, then relays
 * control requests to the claim's executor. One connection is one session. An unmodified program's
 * interposer sends ATTACH instead of HELLO: its connection then carries nothing and registers its
 * process with the claim for as long as it stays open.
 */
public final class ClaimSocket implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimSocket.class.getName());

  /** What HELLO tells the tenant about the backend. */
  public record Identity(String claim, String backend, boolean simulated) {}

  /**
   * How the claim serves unmodified programs.
   *
   * @param geometry the claim's slice now (its groups change on resize)
   * @param refusal why the claim cannot serve them, or null when it can
   */
  public record Transparent(
      AttachedProcesses processes, Supplier<SliceGeometry> geometry, String refusal) {}

  private final Path path;
  private final Identity identity;
  private final TokenCheck tokens;
  private final ClaimRuntime runtime;
  private final int maxFrameBytes;
  private final Transparent transparent;
  private final ServerSocketChannel server;
  private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private ClaimSocket(
      Path path,
      Identity identity,
      TokenCheck tokens,
      ClaimRuntime runtime,
      int maxFrameBytes,
      Transparent transparent,
      ServerSocketChannel server) {
    this.path = path;
    this.identity = identity;
    this.tokens = tokens;
    this.runtime = runtime;
    this.maxFrameBytes = maxFrameBytes;
    this.transparent = transparent;
    this.server = server;
  }

  /** Binds the socket (replacing a stale one) and starts accepting. */
  public static ClaimSocket open(
      Path path,
      Identity identity,
      TokenCheck tokens,
      ClaimRuntime runtime,
      int maxFrameBytes,
      Transparent transparent)
      throws IOException {
    Files.deleteIfExists(path);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(path));
    // Containers may run as any user; the token, not the file mode, guards the claim.
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw-rw-"));
    ClaimSocket socket =
        new ClaimSocket(path, identity, tokens, runtime, maxFrameBytes, transparent, server);
    Thread.ofPlatform().name("accept-" + identity.claim()).daemon().start(socket::accept);
    return socket;
  }

  public Path path() {
    return path;
  }

  private void accept() {
    while (!closed) {
      try {
        SocketChannel channel = server.accept();
        connections.add(channel);
        Thread.ofVirtual().start(() -> serve(channel));
      } catch (IOException e) {
        if (!closed) {
          LOG.log(
              System.Logger.Level.WARNING, "claim {0}: accept failed: {1}", identity.claim(), e);
        }
        return;
      }
    }
  }

  private void serve(SocketChannel channel) {
    Session session = null;
    // Not try-with-resources: the refusals below must be written before the channel closes.
    try {
      session = hello(channel);
      if (session == null) {
        return;
      }
      while (true) {
        ByteBuffer frame = Frames.read(channel, maxFrameBytes);
        if (frame == null) {
          return;
        }
        Op op = Op.of(frame.get());
        if (op == Op.DOORBELL) {
          runtime.wake();
          continue;
        }
        Reply reply =
            op == null || op == Op.HELLO
                ? Reply.error(Status.BAD_REQUEST, "unknown or repeated request")
                : runtime.call(session, op, frame.slice()).get();
        Frames.write(channel, reply.status().code, reply.payload());
      }
    } catch (Frames.TooLargeException e) {
      reject(channel, Status.TOO_LARGE, e.getMessage());
      discardPending(channel);
    } catch (IOException e) {
      // The tenant went away; its session is released below.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | IllegalStateException e) {
      reject(channel, Status.UNAVAILABLE, String.valueOf(e.getMessage()));
    } finally {
      connections.remove(channel);
      closeQuietly(channel);
      if (session != null && !closed) {
        runtime.closeSession(session);
      }
    }
  }

  private Session hello(SocketChannel channel) throws IOException, InterruptedException {
    ByteBuffer frame = Frames.read(channel, maxFrameBytes);
    if (frame == null) {
      return null;
    }
    String claim;
    String token;
    try {
      Op first = Op.of(frame.get());
      if (first == Op.ATTACH) {
        attach(channel, frame.slice());
        return null;
      }
      if (first != Op.HELLO) {
        reject(channel, Status.UNAUTHORIZED, "the first request must be HELLO or ATTACH");
        return null;
      }
      claim = Frames.getString(frame);
      token = Frames.getString(frame);
    } catch (BufferUnderflowException e) {
      reject(channel, Status.BAD_REQUEST, "malformed HELLO");
      return null;
    }
    if (!claim.equals(identity.claim()) || !tokens.accepts(token)) {
      reject(channel, Status.UNAUTHORIZED, "wrong claim or token for " + identity.claim());
      return null;
    }
    Session session;
    try {
      session = runtime.openSession(() -> closeQuietly(channel)).get();
    } catch (ExecutionException e) {
      Status status = e.getCause() instanceof ProtocolException p ? p.status() : Status.GPU_ERROR;
      reject(channel, status, String.valueOf(e.getCause().getMessage()));
      return null;
    }
    ByteBuffer reply = ByteBuffer.allocate(1024);
    reply.putLong(session.id).putInt(runtime.sms()).putLong(runtime.memoryQuota());
    reply.put((byte) (identity.simulated() ? 1 : 0));
    Frames.putString(reply, identity.backend());
    Frames.putString(reply, session.memory.relativeName());
    reply.putLong(session.memory.size());
    Frames.write(channel, Status.OK.code, reply.flip());
    return session;
  }

  /**
   * Registers an unmodified program's process and answers the claim's slice; then holds the
   * connection, which carries nothing more, until either side closes it.
   */
  private void attach(SocketChannel channel, ByteBuffer payload) throws IOException {
    AttachRequest request;
    try {
      request = AttachRequest.parse(payload);
    } catch (AttachRequest.MalformedException e) {
      reject(channel, Status.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!request.claim().equals(identity.claim()) || !tokens.accepts(request.token())) {
      reject(channel, Status.UNAUTHORIZED, "wrong claim or token for " + identity.claim());
      return;
    }
    if (transparent.refusal() != null) {
      reject(channel, Status.UNAVAILABLE, transparent.refusal());
      return;
    }
    if (closed) {
      reject(channel, Status.UNAVAILABLE, "claim " + identity.claim() + " is being released");
      return;
    }
    try (AttachedProcesses.Registration registration = transparent.processes().register(request)) {
      if (registration == null) {
        reject(
            channel,
            Status.UNAVAILABLE,
            "claim "
                + identity.claim()
                + " has its maximum of "
                + transparent.processes().max()
                + " attached processes");
        return;
      }
      Frames.write(channel, Status.OK.code, transparent.geometry().get().encode());
      LOG.log(
          System.Logger.Level.DEBUG,
          "claim {0}: process {1} attached",
          identity.claim(),
          registration.process());
      // Nothing more is expected: any byte is a protocol error, end of stream a detach.
      if (channel.read(ByteBuffer.allocate(1)) > 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            "claim {0}: attached process {1} sent data; closing its registration",
            identity.claim(),
            registration.process());
      }
    }
  }

  /**
   * Reads and drops what the tenant sends after a refused frame (at most a few MiB) until it
   * closes, so that closing does not reset the connection before the tenant read the refusal.
   */
  private static void discardPending(SocketChannel channel) {
    try {
      channel.shutdownOutput();
      ByteBuffer sink = ByteBuffer.allocate(64 << 10);
      for (int i = 0; i < 64 && channel.read(sink.clear()) >= 0; i++) {
        // Dropped.
      }
    } catch (IOException e) {
      // The tenant is gone already.
    }
  }

  private static void reject(SocketChannel channel, Status status, String message) {
    try {
      Reply reply = Reply.error(status, message);
      Frames.write(channel, reply.status().code, reply.payload());
    } catch (IOException e) {
      // Nothing more to tell a tenant that is gone.
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", path, e);
    }
    connections.forEach(ClaimSocket::closeQuietly);
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Already gone.
    }
  }
}
