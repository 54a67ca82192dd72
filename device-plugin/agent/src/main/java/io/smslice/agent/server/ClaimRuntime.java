package io.smslice.agent.server;

import io.smslice.agent.metrics.ClaimMetrics;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The executor of one claim: one thread that owns the claim's green context (a green context may be
 * current on one thread only), runs its sessions' control requests and polls their rings. Idle, it
 * spins briefly, then sleeps until a request or a tenant's doorbell wakes it.
 */
public final class ClaimRuntime implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimRuntime.class.getName());
  private static final long SPIN_NANOS = 200_000;
  private static final long SLEEP_NANOS = 10_000_000;

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
  public record Limits(SessionDirectory sessionDirectory, long sharedDataBytes, int maxSessions) {}

  private final String name;
  private final GpuBackend backend;
  private final String gpuUuid;
  private final Limits limits;
  private final FaultListener faults;
  private final ClaimMetrics metrics = new ClaimMetrics();
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final List<Session> sessions = new ArrayList<>();
  private final AtomicLong memoryUsed = new AtomicLong();
  private final Thread thread;
  private volatile long memoryQuota;
  private volatile List<Integer> groups;
  private volatile GreenContext context;
  private volatile boolean serving;
  private volatile boolean stopping;
  private volatile int sessionCount;
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
    } catch (GpuException e) {
      runtime.close();
      throw e;
    }
    return runtime;
  }

  private Void makeContext() throws GpuException {
    GreenContext made = backend.createGreenContext(gpuUuid, groups);
    made.makeCurrent();
    context = made;
    serving = true;
    return null;
  }

  public String gpuUuid() {
    return gpuUuid;
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

  boolean serving() {
    return serving;
  }

  GreenContext context() {
    return context;
  }

  void reserveMemory(long bytes) throws ProtocolException {
    long used = memoryUsed.get();
    if (bytes > memoryQuota - used) {
      throw new ProtocolException(
          Status.QUOTA_EXCEEDED,
          "allocating "
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

  // ---- requests from connections (any thread) ----

  /** A new session with its shared mapping; refused when the claim has its maximum. */
  public CompletableFuture<Session> openSession(Runnable disconnect) {
    return submit(
        () -> {
          if (!serving) {
            throw new ProtocolException(Status.DEVICE_LOST, "the GPU is being recovered; retry");
          }
          if (sessions.size() >= limits.maxSessions()) {
            throw new ProtocolException(
                Status.UNAVAILABLE,
                "the claim has its maximum of " + limits.maxSessions() + " sessions");
          }
          SessionMemory memory;
          try {
            memory = SessionMemory.create(limits.sessionDirectory(), limits.sharedDataBytes());
          } catch (IOException e) {
            throw new ProtocolException(Status.UNAVAILABLE, "cannot create shared memory: " + e);
          }
          try {
            context.registerHost(memory.segment);
          } catch (GpuException e) {
            if (e.contextLost()) {
              memory.close();
              throw e;
            }
            // Copies still work from pageable memory, only slower: serve, and say so.
            LOG.log(
                System.Logger.Level.WARNING,
                "claim {0}: cannot pin the session's shared memory ({1}); copies will be slower",
                name,
                e.getMessage());
          }
          Session session = new Session(nextSessionId++, this, memory, disconnect);
          sessions.add(session);
          sessionCount = sessions.size();
          return session;
        });
  }

  public CompletableFuture<Reply> call(Session session, Op op, ByteBuffer payload) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    enqueue(
        () -> {
          if (!sessions.contains(session)) {
            reply.complete(Reply.error(Status.DEVICE_LOST, "session ended; reconnect"));
            return;
          }
          if (!serving) {
            reply.complete(Reply.error(Status.DEVICE_LOST, "the GPU is being recovered"));
            return;
          }
          session.drain();
          try {
            reply.complete(Reply.ok(session.control(op, payload)));
          } catch (ProtocolException e) {
            reply.complete(Reply.error(e.status(), e.getMessage()));
          } catch (GpuException e) {
            if (e.contextLost()) {
              Status status = contextLost(session, e) ? Status.FAULT : Status.DEVICE_LOST;
              reply.complete(Reply.error(status, e.getMessage()));
            } else {
              reply.complete(Reply.error(Status.GPU_ERROR, e.getMessage()));
            }
          } catch (RuntimeException e) {
            reply.complete(Reply.malformed(op, payload.limit(), e));
          }
        });
    return reply;
  }

  public void closeSession(Session session) {
    enqueue(
        () -> {
          if (sessions.remove(session)) {
            sessionCount = sessions.size();
            if (serving) {
              session.drain();
              session.release();
            } else {
              // The context is lost and recovery will not see this session any more: drop its
              // objects (the reset frees them on the GPU) and its mapping now.
              session.end(Status.DEVICE_LOST, "session closed during GPU recovery", false);
            }
          }
        });
  }

  /** Wakes the executor (a tenant rang the doorbell). */
  public void wake() {
    LockSupport.unpark(thread);
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
          for (Session session : sessions) {
            session.drain();
            session.synchronizeAll();
          }
          GreenContext old = context;
          GreenContext next = backend.createGreenContext(gpuUuid, newGroups);
          GreenContextSwap swap;
          try {
            next.makeCurrent();
            swap = GreenContextSwap.prepare(sessions, next);
          } catch (GpuException e) {
            old.makeCurrent();
            next.close();
            throw e;
          }
          swap.commit(sessions);
          context = next;
          groups = List.copyOf(newGroups);
          long serving = System.nanoTime() - start;
          old.makeCurrent();
          swap.closeOld();
          old.close(); // also unbinds it from this thread
          next.makeCurrent();
          metrics.resized(serving);
          return serving;
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
    enqueue(
        () -> {
          try {
            result.complete(work.call());
          } catch (Throwable t) {
            result.completeExceptionally(t);
          }
        });
    return result;
  }

  private void enqueue(Runnable task) {
    if (stopping) {
      throw new IllegalStateException("claim " + name + " is no longer served");
    }
    tasks.add(task);
    LockSupport.unpark(thread);
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
    while (!stopping || !tasks.isEmpty()) {
      boolean worked = false;
      Runnable task;
      while ((task = tasks.poll()) != null) {
        task.run();
        worked = true;
      }
      if (serving) {
        for (int i = 0; i < sessions.size() && serving; i++) {
          worked |= sessions.get(i).pollRing(64) > 0;
        }
      }
      if (worked) {
        lastWork = System.nanoTime();
      } else if (System.nanoTime() - lastWork < SPIN_NANOS) {
        Thread.onSpinWait();
      } else {
        sleep();
        lastWork = System.nanoTime();
      }
    }
  }

  /** Sleeps unless work arrived; tenants see the flag and ring the doorbell after publishing. */
  private void sleep() {
    setSleeping(1);
    boolean pending = !tasks.isEmpty();
    for (Session session : sessions) {
      pending |= serving && session.hasPending();
    }
    if (!pending && !stopping) {
      LockSupport.parkNanos(SLEEP_NANOS);
    }
    setSleeping(0);
  }

  private void setSleeping(int value) {
    for (Session session : sessions) {
      session.memory.counters.putInt(SharedLayout.AGENT_SLEEPING, value);
    }
    io.smslice.protocol.SharedCounters.fence();
  }

  /** Ends all sessions, frees their GPU objects and destroys the green context. */
  @Override
  public void close() {
    if (stopping) {
      return;
    }
    CompletableFuture<Void> done =
        submit(
            () -> {
              for (Session session : sessions) {
                session.drain();
                session.end(
                    Status.UNAVAILABLE, "the claim is no longer served on this node", serving);
              }
              sessions.clear();
              sessionCount = 0;
              serving = false;
              if (context != null) {
                context.close();
                context = null;
              }
              return null;
            });
    stopping = true;
    LockSupport.unpark(thread);
    try {
      done.get();
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.log(System.Logger.Level.WARNING, "claim {0}: closing failed: {1}", name, e.getCause());
    }
  }
}
