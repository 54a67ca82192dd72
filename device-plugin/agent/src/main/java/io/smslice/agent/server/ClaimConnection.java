package io.smslice.agent.server;

import io.smslice.agent.transparent.AttachRequest;
import io.smslice.agent.transparent.AttachedProcesses;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One connection to a claim's socket, served on its own virtual thread: its first frame is HELLO
 * (then it is a session, relaying control requests to the claim's executor) or ATTACH (then it is
 * an unmodified program's registration and carries nothing more). Whatever one connection does or
 * throws ends that connection only.
 */
final class ClaimConnection {
  private static final System.Logger LOG = System.getLogger(ClaimConnection.class.getName());

  private final ClaimSocket socket;
  private final SocketChannel channel;
  private final AtomicBoolean waitingForFirstFrame = new AtomicBoolean(true);
  private volatile Session session;
  private volatile long lastActivity = System.nanoTime();
  private volatile long lastSubmitted;
  private volatile boolean busy;

  ClaimConnection(ClaimSocket socket, SocketChannel channel) {
    this.socket = socket;
    this.channel = channel;
  }

  void serve() {
    // Not try-with-resources: the refusals below must be written before the channel closes.
    try {
      ByteBuffer first = Frames.read(channel, socket.limits.firstFrameBytes());
      firstFrameDone();
      if (first == null) {
        return;
      }
      Op op = Op.of(first.get());
      if (op == Op.ATTACH) {
        attach(first.slice());
      } else if (op == Op.HELLO) {
        if (hello(first.slice())) {
          relay();
        }
      } else {
        reject(channel, Status.UNAUTHORIZED, "the first request must be HELLO or ATTACH");
      }
    } catch (Frames.TooLargeException e) {
      reject(channel, Status.TOO_LARGE, e.getMessage());
      socket.closeLater(this);
      discardPending(channel);
    } catch (Frames.EmptyFrameException e) {
      reject(channel, Status.BAD_REQUEST, e.getMessage());
    } catch (IOException e) {
      // The tenant went away (or a deadline closed the connection); its session ends below.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | IllegalStateException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      reject(channel, Status.UNAVAILABLE, String.valueOf(cause.getMessage()));
    } catch (Throwable t) {
      // Even an OutOfMemoryError here ends this connection only, never the claim or the agent.
      LOG.log(
          System.Logger.Level.ERROR,
          "claim " + socket.identity.claim() + ": connection ended by an unexpected error",
          t);
    } finally {
      firstFrameDone();
      close();
      socket.finished(this);
      Session ended = session;
      if (ended != null && !socket.closed()) {
        try {
          socket.runtime.closeSession(ended);
        } catch (IllegalStateException e) {
          // The claim is being released, which ends every session.
        }
      }
    }
  }

  /** Its thread could not start: undo what admitting it counted. */
  void abandoned() {
    firstFrameDone();
    socket.finished(this);
  }

  private void firstFrameDone() {
    if (waitingForFirstFrame.compareAndSet(true, false)) {
      socket.authenticatedOrGone();
    }
  }

  /** Checks HELLO and opens the session; false when refused. */
  private boolean hello(ByteBuffer payload)
      throws IOException, InterruptedException, ExecutionException {
    String claim;
    String token;
    try {
      claim = Frames.getString(payload);
      token = Frames.getString(payload);
    } catch (BufferUnderflowException e) {
      reject(channel, Status.BAD_REQUEST, "malformed HELLO: expected a claim and a token string");
      return false;
    }
    if (!claim.equals(socket.identity.claim()) || !socket.tokens.accepts(token)) {
      reject(channel, Status.UNAUTHORIZED, "wrong claim or token for " + socket.identity.claim());
      return false;
    }
    Session opened;
    try {
      opened = socket.runtime.openSession(this::close).get();
    } catch (ExecutionException e) {
      Status status = e.getCause() instanceof ProtocolException p ? p.status() : Status.GPU_ERROR;
      reject(channel, status, String.valueOf(e.getCause().getMessage()));
      return false;
    }
    // Owned by this connection before anything can fail: a tenant gone before reading the answer
    // must not leave its session (and shared mapping) behind.
    session = opened;
    lastActivity = System.nanoTime();
    ByteBuffer reply = ByteBuffer.allocate(1024);
    reply.putLong(opened.id).putInt(socket.runtime.sms()).putLong(socket.runtime.memoryQuota());
    reply.put((byte) (socket.identity.simulated() ? 1 : 0));
    Frames.putString(reply, socket.identity.backend());
    Frames.putString(reply, opened.memory.relativeName());
    reply.putLong(opened.memory.size());
    Frames.write(channel, Status.OK.code, reply.flip());
    return true;
  }

  /** Relays the session's control requests until it ends. */
  private void relay() throws IOException, InterruptedException, ExecutionException {
    while (true) {
      ByteBuffer frame = Frames.read(channel, socket.maxFrameBytes);
      if (frame == null) {
        return;
      }
      lastActivity = System.nanoTime();
      byte code = frame.get();
      Op op = Op.of(code);
      if (op == Op.DOORBELL) {
        socket.runtime.wake();
        continue;
      }
      Reply reply;
      if (op == null) {
        reply = Reply.error(Status.BAD_REQUEST, "unknown op code " + Byte.toUnsignedInt(code));
      } else if (op == Op.HELLO || op == Op.ATTACH) {
        reply = Reply.error(Status.BAD_REQUEST, op + " is valid only as the first request");
      } else {
        busy = true;
        try {
          reply = socket.runtime.call(session, op, frame.slice()).get();
        } finally {
          busy = false;
          lastActivity = System.nanoTime();
        }
      }
      Frames.write(channel, reply.status().code, reply.payload());
    }
  }

  /**
   * Registers an unmodified program's process and answers the claim's slice; then holds the
   * connection, which carries nothing more, until either side closes it.
   */
  private void attach(ByteBuffer payload) throws IOException {
    AttachRequest request;
    try {
      request = AttachRequest.parse(payload);
    } catch (AttachRequest.MalformedException e) {
      reject(channel, Status.BAD_REQUEST, e.getMessage());
      return;
    }
    String claim = socket.identity.claim();
    if (!request.claim().equals(claim) || !socket.tokens.accepts(request.token())) {
      reject(channel, Status.UNAUTHORIZED, "wrong claim or token for " + claim);
      return;
    }
    ClaimSocket.Transparent transparent = socket.transparent;
    if (transparent.refusal() != null) {
      reject(channel, Status.UNAVAILABLE, transparent.refusal());
      return;
    }
    if (socket.closed()) {
      reject(channel, Status.UNAVAILABLE, "claim " + claim + " is being released");
      return;
    }
    try (AttachedProcesses.Registration registration = transparent.processes().register(request)) {
      if (registration == null) {
        reject(
            channel,
            Status.UNAVAILABLE,
            "claim "
                + claim
                + " has its maximum of "
                + transparent.processes().max()
                + " attached processes");
        return;
      }
      Frames.write(channel, Status.OK.code, transparent.geometry().get().encode());
      LOG.log(
          System.Logger.Level.DEBUG,
          "claim {0}: process {1} attached",
          claim,
          registration.process());
      // Nothing more is expected: any byte is a protocol error, end of stream a detach.
      if (channel.read(ByteBuffer.allocate(1)) > 0) {
        LOG.log(
            System.Logger.Level.WARNING,
            "claim {0}: attached process {1} sent data; closing its registration",
            claim,
            registration.process());
      }
    }
  }

  /** Run by the socket's timer: a connection still without its first frame is closed. */
  void helloDeadlinePassed() {
    if (waitingForFirstFrame.get()) {
      reject(
          channel,
          Status.UNAUTHORIZED,
          "no HELLO or ATTACH within " + socket.limits.helloDeadline().toMillis() + " ms");
      close();
    }
  }

  /**
   * Closes a session that has sent no request and queued no ring record for {@code idleNanos}.
   * Attached processes and connections still authenticating are left alone (the deadline covers the
   * latter).
   */
  void closeIfIdle(long now, long idleNanos) {
    Session current = session;
    if (current == null || busy) {
      return;
    }
    long submitted;
    try {
      submitted = current.memory.counters.getLong(SharedLayout.SUBMITTED);
    } catch (IllegalStateException e) {
      return; // the session's mapping is already gone: it is ending
    }
    if (submitted != lastSubmitted) {
      lastSubmitted = submitted;
      lastActivity = now;
      return;
    }
    if (now - lastActivity > idleNanos && channel.isOpen()) {
      LOG.log(
          System.Logger.Level.INFO,
          "claim {0}: closing session {1}, idle for {2} s",
          socket.identity.claim(),
          current.id,
          (now - lastActivity) / 1_000_000_000);
      close();
    }
  }

  void close() {
    closeQuietly(channel);
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

  static void reject(SocketChannel channel, Status status, String message) {
    try {
      Reply reply = Reply.error(status, message);
      Frames.write(channel, reply.status().code, reply.payload());
    } catch (IOException e) {
      // Nothing more to tell a tenant that is gone.
    }
  }

  static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Already gone.
    }
  }
}
