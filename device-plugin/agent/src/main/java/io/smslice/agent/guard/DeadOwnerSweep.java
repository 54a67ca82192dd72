package io.smslice.agent.guard;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Clears, every period, the busy marks latency-critical owners left when they died ({@link
 * GpuGuard#sweepDeadOwners}): otherwise only a best-effort waiter clears one, and with none the
 * file says work is in flight for as long as the GPU's guard lives.
 */
public final class DeadOwnerSweep implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(DeadOwnerSweep.class.getName());

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("guard-sweep").daemon().unstarted(r));

  public DeadOwnerSweep(Supplier<Collection<GpuGuard>> guards, Duration period) {
    timer.scheduleWithFixedDelay(
        () -> guards.get().forEach(DeadOwnerSweep::sweep),
        period.toNanos(),
        period.toNanos(),
        TimeUnit.NANOSECONDS);
  }

  private static void sweep(GpuGuard guard) {
    try {
      int cleared = guard.sweepDeadOwners();
      if (cleared > 0) {
        LOG.log(
            System.Logger.Level.INFO,
            "cleared {0} busy mark(s) of latency-critical tenants that died, in {1}",
            cleared,
            guard.path());
      }
    } catch (RuntimeException e) {
      // A failed sweep must not cancel the later ones (a scheduled task that throws stops).
      LOG.log(System.Logger.Level.WARNING, "cannot sweep {0}: {1}", guard.path(), e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      // Done when this returns: a sweep under way may still touch its guard's memory.
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
