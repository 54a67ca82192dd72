package io.smslice.agent.server;

import io.smslice.agent.transparent.AttachedProcesses;
import io.smslice.agent.transparent.SliceGeometry;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A claim's Unix socket: accepts tenant connections and hands each to a {@link ClaimConnection}
 * (one session, or one attached process). It bounds what peers without a token can hold: a cap on
 * connections that have not sent their first frame, a deadline for that frame, a small limit on its
 * size; and it keeps accepting after an accept fails (out of descriptors, say), backing off.
 */
public final class ClaimSocket implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimSocket.class.getName());
  private static final long MAX_BACKOFF_MILLIS = 1000;

  /** Deadlines and idle checks of every claim socket; its tasks only close channels. */
  private static final ScheduledExecutorService TIMERS =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("claim-socket-timers").daemon().unstarted(r));

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

  /** Where new connections come from; tests wrap it to make accepts fail. */
  interface Acceptor {
    SocketChannel accept() throws IOException;
  }

  final Path path;
  final Identity identity;
  final TokenCheck tokens;
  final ClaimRuntime runtime;
  final int maxFrameBytes;
  final Transparent transparent;
  final ConnectionLimits limits;
  private final ServerSocketChannel server;
  private final Acceptor acceptor;
  private final Set<ClaimConnection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger unauthenticated = new AtomicInteger();
  private final AtomicInteger acceptFailures = new AtomicInteger();
  private final ScheduledFuture<?> idleCheck;
  private volatile boolean closed;

  private ClaimSocket(
      Path path,
      Identity identity,
      TokenCheck tokens,
      ClaimRuntime runtime,
      int maxFrameBytes,
      Transparent transparent,
      ConnectionLimits limits,
      ServerSocketChannel server,
      UnaryOperator<Acceptor> wrap) {
    this.path = path;
    this.identity = identity;
    this.tokens = tokens;
    this.runtime = runtime;
    this.maxFrameBytes = maxFrameBytes;
    this.transparent = transparent;
    this.limits = limits;
    this.server = server;
    this.acceptor = wrap.apply(server::accept);
    long idleMillis = limits.sessionIdleTimeout().toMillis();
    long period = Math.max(10, Math.min(1000, idleMillis / 4));
    this.idleCheck =
        idleMillis == 0
            ? null
            : TIMERS.scheduleAtFixedRate(
                this::closeIdleSessions, period, period, TimeUnit.MILLISECONDS);
  }

  /** Binds the socket (replacing what is at its path) and starts accepting. */
  public static ClaimSocket open(
      Path path,
      Identity identity,
      TokenCheck tokens,
      ClaimRuntime runtime,
      int maxFrameBytes,
      Transparent transparent,
      ConnectionLimits limits)
      throws IOException {
    return open(
        path,
        identity,
        tokens,
        runtime,
        maxFrameBytes,
        transparent,
        limits,
        UnaryOperator.identity());
  }

  static ClaimSocket open(
      Path path,
      Identity identity,
      TokenCheck tokens,
      ClaimRuntime runtime,
      int maxFrameBytes,
      Transparent transparent,
      ConnectionLimits limits,
      UnaryOperator<Acceptor> wrap)
      throws IOException {
    ServerSocketChannel server = bind(path);
    ClaimSocket socket =
        new ClaimSocket(
            path, identity, tokens, runtime, maxFrameBytes, transparent, limits, server, wrap);
    Thread.ofPlatform().name("accept-" + identity.claim()).daemon().start(socket::accept);
    return socket;
  }

  /**
   * Binds beside the claim directory (in its parent, which no tenant can reach), sets the mode
   * there, then renames the socket into place: a tenant who plants a symlink at the socket's path
   * gets it replaced, never followed.
   */
  private static ServerSocketChannel bind(Path path) throws IOException {
    Path directory = path.getParent();
    Path staged =
        directory.resolveSibling("." + directory.getFileName() + "." + path.getFileName());
    Files.deleteIfExists(staged);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(staged));
      // Containers may run as any user; the token, not the file mode, guards the claim, and only
      // the claim's containers (and the node's root) can reach the directory.
      Files.setPosixFilePermissions(staged, PosixFilePermissions.fromString("rw-rw-rw-"));
      Files.move(staged, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return server;
    } catch (IOException e) {
      server.close();
      Files.deleteIfExists(staged);
      throw new IOException("cannot bind the claim socket " + path + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return path;
  }

  /** Accept failures so far (each followed by a back-off, never by giving up). */
  int acceptFailures() {
    return acceptFailures.get();
  }

  int connectionCount() {
    return connections.size();
  }

  private void accept() {
    long backoff = 0;
    while (!closed) {
      try {
        SocketChannel channel = acceptor.accept();
        backoff = 0;
        admit(channel);
      } catch (Throwable t) {
        // Out of descriptors, out of memory: nothing here may end the loop but close().
        if (closed) {
          return;
        }
        acceptFailures.incrementAndGet();
        backoff = Math.min(MAX_BACKOFF_MILLIS, Math.max(10, backoff * 2));
        LOG.log(
            System.Logger.Level.WARNING,
            "claim {0}: accept failed ({1}); retrying in {2} ms",
            identity.claim(),
            t,
            backoff);
        sleep(backoff);
      }
    }
  }

  private void admit(SocketChannel channel) {
    if (unauthenticated.incrementAndGet() > limits.maxUnauthenticated()) {
      unauthenticated.decrementAndGet();
      ClaimConnection.reject(
          channel,
          Status.UNAVAILABLE,
          "claim "
              + identity.claim()
              + " has "
              + limits.maxUnauthenticated()
              + " connections waiting to send HELLO; try again");
      ClaimConnection.closeQuietly(channel);
      return;
    }
    ClaimConnection connection = new ClaimConnection(this, channel);
    connections.add(connection);
    try {
      if (closed) {
        connection.close();
      }
      TIMERS.schedule(
          connection::helloDeadlinePassed,
          limits.helloDeadline().toMillis(),
          TimeUnit.MILLISECONDS);
      Thread.ofVirtual().name("conn-" + identity.claim()).start(connection::serve);
    } catch (Throwable t) {
      connection.close();
      connection.abandoned();
      throw t;
    }
  }

  /** A connection sent its first frame (or ended before): it no longer counts as waiting. */
  void authenticatedOrGone() {
    unauthenticated.decrementAndGet();
  }

  void finished(ClaimConnection connection) {
    connections.remove(connection);
  }

  /** Closes the connection after the HELLO deadline, whatever its peer does meanwhile. */
  void closeLater(ClaimConnection connection) {
    TIMERS.schedule(connection::close, limits.helloDeadline().toMillis(), TimeUnit.MILLISECONDS);
  }

  boolean closed() {
    return closed;
  }

  private void closeIdleSessions() {
    long now = System.nanoTime();
    long idle = limits.sessionIdleTimeout().toNanos();
    for (ClaimConnection connection : connections) {
      connection.closeIfIdle(now, idle);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closed = true;
    if (idleCheck != null) {
      idleCheck.cancel(false);
    }
    try {
      server.close();
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "closing {0}: {1}", path, e);
    }
    connections.forEach(ClaimConnection::close);
  }
}
