package io.smslice.agent.server;

import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.metrics.ClaimMetrics;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.protocol.Futex;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The executor of one claim: one thread that owns the claim's green context (a green context may be
 * current on one thread only), runs its sessions' control requests and polls their rings, giving
 * each session a turn of bounded work in round-robin. Idle, it spins briefly, then sleeps until a
 * request or a tenant's doorbell wakes it. Nothing a request throws ends it; releasing the claim
 * never waits more than {@link #RELEASE_WAIT_MILLIS} for it.
 */
public final class ClaimRuntime implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimRuntime.class.getName());
  private static final long BUSY_SPIN_NANOS = 20_000;
  private static final long SPIN_NANOS = 200_000;

  /**
   * How long an idle executor sleeps between looks of its own. Tenants wake it when they publish
   * work (tenant-protocol.md), so this only bounds what a lost wake-up would cost; every look costs
   * an idle claim CPU.
   */
  private static final long SLEEP_NANOS = 100_000_000;

  /** Without sessions only a queued request brings work, and it wakes the executor itself. */
  private static final long SLEEP_WITHOUT_SESSIONS_NANOS = 1_000_000_000;

  /**
   * How long a release waits for the executor to finish what it is doing (a GPU call, for example a
   * synchronization with a kernel that never ends) before it returns without it.
   */
  public static final long RELEASE_WAIT_MILLIS = 1_000;

  /** Told when a tenant's work made the GPU's context unusable. */
  public interface FaultListener {
    /**
     * Starts recovery; true when this is the first report of the fault, whose session is then held
     * responsible (the driver reports a fault to every context, so the first to see it is the best
     * attribution there is).
     */
    boolean contextLost(ClaimRuntime runtime);
  }

  /** Limits of a claim's sessions. */
  public record Limits(
      SessionDirectory sessionDirectory,
      long sharedDataBytes,
      int maxSessions,
      ObjectLimits objects) {
    public Limits(SessionDirectory sessionDirectory, long sharedDataBytes, int maxSessions) {
      this(sessionDirectory, sharedDataBytes, maxSessions, ObjectLimits.DEFAULT);
    }
  }

  private final String name;
  private final GpuBackend backend;
  private final String gpuUuid;
  private final Limits limits;
  private final FaultListener faults;
  private final ClaimMetrics metrics = new ClaimMetrics();
  private final ExecutorQueue tasks;
  private final SessionTurns turns;
  private final List<Session> sessions = new ArrayList<>();
  private final AtomicLong memoryUsed = new AtomicLong();
  private final Thread thread;
  private volatile long memoryQuota;
  private volatile List<Integer> groups;
  private volatile GreenContext context;
  private volatile boolean serving;
  private volatile String failure;
  private volatile int sessionCount;

  /** This claim's slot in its GPU's interference guard, or null (set and used on the executor). */
  private ClaimGuard guard;

  /** The one session whose AGENT_SLEEPING futex the idle executor sleeps on, or null. */
  private volatile Session sleepingOn;

  private long nextSessionId = 1;
  private Session culprit;

  private ClaimRuntime(
      String name,
      GpuBackend backend,
      String gpuUuid,
      List<Integer> groups,
      long memoryQuota,
      Limits limits,
      FaultListener faults) {
    this.name = name;
    this.backend = backend;
    this.gpuUuid = gpuUuid;
    this.groups = List.copyOf(groups);
    this.memoryQuota = memoryQuota;
    this.limits = limits;
    this.faults = faults;
    this.thread = Thread.ofPlatform().name("claim-" + name).daemon().unstarted(this::loop);
    this.tasks = new ExecutorQueue(name, this::wake);
    this.turns = new SessionTurns(this, sessions);
  }

  /** Starts the executor and makes the claim's green context on it. */
  public static ClaimRuntime start(
      String name,
      GpuBackend backend,
      String gpuUuid,
      List<Integer> groups,
      long memoryQuota,
      Limits limits,
      FaultListener faults)
      throws GpuException {
    ClaimRuntime runtime =
        new ClaimRuntime(name, backend, gpuUuid, groups, memoryQuota, limits, faults);
    runtime.thread.start();
    try {
      runtime.await(runtime.submit(runtime::makeContext));
    } catch (GpuException | RuntimeException e) {
      runtime.close();
      throw e;
    }
    return runtime;
  }

  private Void makeContext() throws GpuException {
    if (failure != null) {
      throw new IllegalStateException("claim " + name + " failed: " + failure);
    }
    GreenContext made = backend.createGreenContext(gpuUuid, groups);
    made.makeCurrent();
    context = made;
    serving = true;
    return null;
  }

  public String gpuUuid() {
    return gpuUuid;
  }

  /**
   * Takes (or, with null, leaves) a slot in the GPU's interference guard: a latency-critical claim
   * publishes its work in flight there, a best-effort one holds its work meanwhile.
   */
  public CompletableFuture<Void> useGuard(ClaimGuard slot) {
    CompletableFuture<Void> done =
        submit(
            () -> {
              if (guard != null && guard != slot) {
                guard.close();
              }
              guard = slot;
              return null;
            });
    done.whenComplete(
        (ok, failed) -> {
          if (failed != null && slot != null) {
            slot.close(); // the claim stopped first
          }
        });
    return done;
  }

  /** On the executor: the claim's guard slot, or null. */
  ClaimGuard guard() {
    return guard;
  }

  public List<Integer> groups() {
    return groups;
  }

  public int sms() {
    GreenContext current = context;
    return current == null ? 0 : current.smCount();
  }

  public ClaimMetrics metrics() {
    return metrics;
  }

  public long memoryUsed() {
    return memoryUsed.get();
  }

  public long memoryQuota() {
    return memoryQuota;
  }

  public int sessions() {
    return sessionCount;
  }

  /** Why the claim stopped serving for good (an error inside the agent), or null. */
  public String failure() {
    return failure;
  }

  boolean serving() {
    return serving;
  }

  GreenContext context() {
    return context;
  }

  ObjectLimits objectLimits() {
    return limits.objects();
  }

  /** Counts {@code bytes} of {@code what} against the claim's memory quota, or refuses them. */
  void reserveMemory(long bytes, String what) throws ProtocolException {
    long used = memoryUsed.get();
    if (bytes > memoryQuota - used) {
      throw new ProtocolException(
          Status.QUOTA_EXCEEDED,
          what
              + " "
              + bytes
              + " bytes would exceed the claim's memory quota of "
              + memoryQuota
              + " bytes ("
              + used
              + " in use)");
    }
    memoryUsed.addAndGet(bytes);
  }

  void releaseMemory(long bytes) {
    memoryUsed.addAndGet(-bytes);
  }

  /** True once the claim is being released: it takes no more work. */
  public boolean released() {
    return tasks.stopping();
  }

  /** Stops serving until recovery; returns whether {@code session} is held responsible. */
  boolean contextLost(Session session, GpuException e) {
    if (!serving) {
      return false;
    }
    serving = false;
    LOG.log(System.Logger.Level.WARNING, "claim {0}: GPU context lost: {1}", name, e.getMessage());
    if (faults.contextLost(this)) {
      culprit = session;
      metrics.fault();
      return true;
    }
    return false;
  }

  /**
   * An Error escaped a request or record of {@code session}. A {@link VirtualMachineError} (out of
   * memory, stack overflow) may have left the claim's state half changed: the claim stops serving
   * for good and every session is told why ({@code answering}, whose request hit it, keeps its
   * connection until it has read the answer). Any other Error fails only the request. Returns the
   * message for the request that hit it.
   */
  String internalError(Session answering, String what, Throwable error) {
    LOG.log(
        System.Logger.Level.ERROR,
        "claim " + name + ": internal error while serving " + what,
        error);
    if (!(error instanceof VirtualMachineError)) {
      return "internal error of the agent while serving " + what + ": " + error;
    }
    if (failure == null) {
      failure = what + " hit " + error;
      serving = false;
      String message =
          "the claim failed inside the agent ("
              + failure
              + "); it serves again when the agent restarts or the claim is bound anew";
      for (Session session : sessions) {
        try {
          if (session == answering) {
            session.endKeepingConnection(Status.UNAVAILABLE, message, true);
          } else {
            session.end(Status.UNAVAILABLE, message, true);
          }
        } catch (Throwable t) {
          LOG.log(System.Logger.Level.WARNING, "claim {0}: ending a session: {1}", name, t);
        }
      }
      sessions.clear();
      sessionCount = 0;
    }
    return "the claim failed inside the agent: " + failure;
  }

  private void endQuietly(Session session, Status why, String message, boolean gpuUsable) {
    try {
      session.end(why, message, gpuUsable);
    } catch (Throwable t) {
      LOG.log(System.Logger.Level.WARNING, "claim {0}: ending a session failed: {1}", name, t);
    }
  }

  // ---- requests from connections (any thread) ----

  /** A new session with its shared mapping; refused when the claim has its maximum. */
  public CompletableFuture<Session> openSession(Runnable disconnect) {
    return submit(
        () -> {
          if (failure != null) {
            throw new ProtocolException(
                Status.UNAVAILABLE, "the claim failed inside the agent: " + failure);
          }
          if (!serving) {
            throw new ProtocolException(Status.DEVICE_LOST, "the GPU is being recovered; retry");
          }
          if (sessions.size() >= limits.maxSessions()) {
            throw new ProtocolException(
                Status.UNAVAILABLE,
                "the claim has its maximum of " + limits.maxSessions() + " sessions");
          }
          Session session = Session.open(nextSessionId++, this, limits, disconnect, context, name);
          sessions.add(session);
          sessionCount = sessions.size();
          return session;
        });
  }

  /**
   * A control request. It waits in its session's queue until the records the tenant queued before
   * it have run (in the session's turns), so that it sees their effects without letting one
   * session's backlog hold up the others.
   */
  public CompletableFuture<Reply> call(Session session, Op op, ByteBuffer payload) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    tasks.add(
        () -> {
          if (failure != null) {
            reply.complete(
                Reply.error(Status.UNAVAILABLE, "the claim failed inside the agent: " + failure));
          } else if (!sessions.contains(session)) {
            reply.complete(Reply.error(Status.DEVICE_LOST, "session ended; reconnect"));
          } else {
            session.controls.add(
                new PendingControl(op, payload, reply, session.submittedRecords()));
          }
        },
        reason -> reply.complete(Reply.error(Status.UNAVAILABLE, reason)));
    return reply;
  }

  public void closeSession(Session session) {
    tasks.addIfServing(
        () -> {
          if (sessions.remove(session)) {
            sessionCount = sessions.size();
            if (serving) {
              session.refuseControls(Status.DEVICE_LOST, "session ended");
              session.drain();
              session.release();
            } else {
              endQuietly(session, Status.DEVICE_LOST, "session closed during GPU recovery", false);
            }
          }
        });
  }

  /** Wakes the executor (a tenant rang the doorbell, a request was queued, the claim stops). */
  public void wake() {
    LockSupport.unpark(thread);
    Session session = sleepingOn;
    if (session != null) {
      Futex.wakeAll(session.memory.segment, SharedLayout.AGENT_SLEEPING);
    }
  }

  // ---- resize and recovery ----

  /**
   * Moves the claim to a new green context made from {@code newGroups}, keeping every session:
   * streams, events and modules are re-made under the same handles, memory stays. Returns the
   * nanoseconds from the start to the new context serving.
   */
  public CompletableFuture<Long> resize(List<Integer> newGroups, long newQuota) {
    return submit(
        () -> {
          long start = System.nanoTime();
          memoryQuota = newQuota;
          if (newGroups.equals(groups)) {
            return 0L;
          }
          if (guard != null) {
            guard.forgetEvents(); // they belong to the context about to go
          }
          context = GreenContextSwap.move(sessions, context, backend, gpuUuid, newGroups);
          groups = List.copyOf(newGroups);
          long nanos = System.nanoTime() - start;
          metrics.resized(nanos);
          return nanos;
        });
  }

  /** Ends every session (the faulting one with FAULT) and drops the dead green context. */
  public CompletableFuture<Void> loseDevice(String reason) {
    return submit(
        () -> {
          serving = false;
          for (Session session : sessions) {
            session.end(
                session == culprit ? Status.FAULT : Status.DEVICE_LOST,
                session == culprit
                    ? "your kernel faulted the GPU (" + reason + "); reconnect"
                    : "another tenant's fault reset the GPU ("
                        + reason
                        + "); device state was lost: reconnect",
                false);
          }
          sessions.clear();
          sessionCount = 0;
          culprit = null;
          memoryUsed.set(0);
          if (guard != null) {
            guard.forgetEvents();
          }
          if (context != null) {
            context.close();
            context = null;
          }
          return null;
        });
  }

  /** Makes a fresh green context after the GPU was reset, and serves again. */
  public CompletableFuture<Void> rebuild() {
    return submit(this::makeContext);
  }

  // ---- executor ----

  private <T> CompletableFuture<T> submit(Callable<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    tasks.add(
        () -> {
          try {
            result.complete(work.call());
          } catch (Throwable t) {
            result.completeExceptionally(t);
          }
        },
        reason -> result.completeExceptionally(new IllegalStateException(reason)));
    return result;
  }

  <T> T await(CompletableFuture<T> future) throws GpuException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GpuException g) {
        throw g;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private void loop() {
    long lastWork = System.nanoTime();
    while (!tasks.stopping()) {
      boolean worked;
      try {
        worked = tasks.runQueued();
        if (serving) {
          worked |= turns.run();
        }
        if (!worked && guard != null && guard.inFlight()) {
          // Nothing queued: wait for the oldest work in flight, so that the guard sees its end.
          guard.awaitOldest();
          worked = true;
        }
      } catch (Throwable t) {
        // Requests and records catch their own errors; this is the executor's own last resort.
        internalError(null, "the claim's executor", t);
        worked = true;
      }
      if (worked) {
        lastWork = System.nanoTime();
      } else if (System.nanoTime() - lastWork < BUSY_SPIN_NANOS) {
        Thread.onSpinWait();
      } else if (System.nanoTime() - lastWork < SPIN_NANOS) {
        Thread.yield(); // still polling, but a host with more busy threads than cores runs others
      } else {
        // No spin after the sleep: a wake with work is found on the next turn, and an empty one
        // (the timeout) sleeps again at once.
        sleep();
      }
    }
    tearDown();
  }

  /**
   * Sleeps unless work arrived; tenants see the flag and wake it after publishing. With one session
   * (the usual claim) it sleeps on that session's AGENT_SLEEPING word (3), which the tenant wakes
   * as a futex, directly; otherwise it parks (1) and the tenant rings the DOORBELL frame, whose
   * reader then wakes it. Either way the flag is set before the last look for work, and the tenant
   * reads it after publishing, so one of the two sees the other.
   */
  private void sleep() {
    Session only = sessions.size() == 1 && Futex.available() ? sessions.getFirst() : null;
    sleepingOn = only;
    setSleeping(only == null ? 1 : 3);
    boolean pending = !tasks.isEmpty();
    for (Session session : sessions) {
      pending |= serving && (session.hasPending() || !session.controls.isEmpty());
    }
    if (!pending && !tasks.stopping()) {
      if (only != null) {
        Futex.await(only.memory.segment, SharedLayout.AGENT_SLEEPING, 3, SLEEP_NANOS);
      } else {
        LockSupport.parkNanos(sessions.isEmpty() ? SLEEP_WITHOUT_SESSIONS_NANOS : SLEEP_NANOS);
      }
    }
    sleepingOn = null;
    setSleeping(0);
  }

  private void setSleeping(int value) {
    for (Session session : sessions) {
      session.memory.counters.putInt(SharedLayout.AGENT_SLEEPING, value);
    }
    io.smslice.protocol.SharedCounters.fence();
  }

  /**
   * After a release, on the executor: ends every session without running its queued work, frees
   * their GPU objects and destroys the green context. When the executor was stuck in a GPU call,
   * this runs once that call returns, after the release itself has returned.
   */
  private void tearDown() {
    String message = "the claim is no longer served on this node";
    tasks.abandonQueued();
    for (Session session : sessions) {
      endQuietly(session, Status.UNAVAILABLE, message, serving);
    }
    sessions.clear();
    sessionCount = 0;
    serving = false;
    if (guard != null) {
      guard.close();
      guard = null;
    }
    if (context != null) {
      try {
        context.close();
      } catch (Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "claim {0}: destroying its context: {1}", name, t);
      }
      context = null;
    }
  }

  /**
   * Stops serving: refuses new work at once, answers queued requests with UNAVAILABLE, and waits at
   * most {@link #RELEASE_WAIT_MILLIS} for the executor to tear the claim down. If it is stuck in a
   * GPU call (a kernel that does not end), the release returns anyway and says so; the executor
   * tears down when the call returns (on CUDA, a kernel that never ends keeps the claim's green
   * context and memory until the agent's process ends).
   */
  @Override
  public void close() {
    if (!tasks.stop("the claim is no longer served on this node")) {
      return;
    }
    try {
      thread.join(RELEASE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      tasks.abandonCurrent();
      turns.abandonCurrent("the claim is no longer served on this node");
      LOG.log(
          System.Logger.Level.WARNING,
          "claim {0}: released while its executor is still busy in a GPU call ({1} ms); its green"
              + " context and memory are freed when that call returns",
          name,
          RELEASE_WAIT_MILLIS);
    }
  }
}
