package io.smslice.operator.claim;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.metrics.SliceMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Work no API event starts: noticing heartbeats that went stale, and refreshing per-GPU metrics.
 */
@ApplicationScoped
public class Housekeeping {
  private static final Logger LOG = Logger.getLogger(Housekeeping.class);

  private final SliceAllocator allocator;
  private final SliceMetrics metrics;
  private final OperatorConfig config;
  private ScheduledExecutorService ticker;
  private long metricsVersion = -1;

  public Housekeeping(SliceAllocator allocator, SliceMetrics metrics, OperatorConfig config) {
    this.allocator = allocator;
    this.metrics = metrics;
    this.config = config;
  }

  void start(@Observes StartupEvent e) {
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("smslice-housekeeping").unstarted(r));
    long liveness = config.livenessCheckInterval().toMillis();
    long refresh = config.metricsRefreshInterval().toMillis();
    ticker.scheduleWithFixedDelay(
        () -> guarded(allocator::checkLiveness), liveness, liveness, TimeUnit.MILLISECONDS);
    ticker.scheduleWithFixedDelay(
        () -> guarded(this::refreshMetrics), refresh, refresh, TimeUnit.MILLISECONDS);
  }

  void stop(@Observes ShutdownEvent e) {
    if (ticker != null) {
      ticker.shutdownNow();
    }
  }

  private void refreshMetrics() {
    long version = allocator.version();
    if (version != metricsVersion) {
      metricsVersion = version;
      metrics.gpus(allocator.usage());
    }
  }

  private static void guarded(Runnable task) {
    try {
      task.run();
    } catch (IllegalStateException notYetAttached) {
      LOG.debug("allocator not attached yet", notYetAttached);
    } catch (RuntimeException e) {
      LOG.warn("housekeeping failed", e);
    }
  }
}
