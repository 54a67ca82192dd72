package io.smslice.node.health;

import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.XidEvent;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps each GPU's health from NVML and tells listeners on every change.
 *
 * <p>A GPU is unhealthy while NVML reports a problem (see {@link Nvml#healthProblem}) or while a
 * critical Xid error is more recent than the quiet period. Unlike a latch, both clear: when the
 * problem is gone and no critical Xid came for the quiet period, the GPU is healthy again. Xids
 * that an application causes (13, 31, 43, 45, 68, 109: its own faults and timeouts) do not mark the
 * GPU. Errors in the monitor threads are logged and retried; they never stop the process.
 */
public final class GpuHealthMonitor implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GpuHealthMonitor.class.getName());
  static final Set<Long> APPLICATION_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

  private final Nvml nvml;
  private final Duration pollInterval;
  private final Duration xidQuietPeriod;
  private final Clock clock;
  private final Map<String, GpuCondition> conditions = new ConcurrentHashMap<>();
  private final Map<String, XidMark> lastXid = new ConcurrentHashMap<>();
  private final List<Consumer<Map<String, GpuCondition>>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<XidEvent>> applicationFaults = new CopyOnWriteArrayList<>();
  private volatile boolean running;
  private Thread poller;
  private Thread xidWatcher;

  private record XidMark(long xid, Instant at) {}

  public GpuHealthMonitor(Nvml nvml, Duration pollInterval, Duration xidQuietPeriod, Clock clock) {
    this.nvml = nvml;
    this.pollInterval = pollInterval;
    this.xidQuietPeriod = xidQuietPeriod;
    this.clock = clock;
  }

  /** Listeners get the full map of conditions after each change. */
  public void addListener(Consumer<Map<String, GpuCondition>> listener) {
    listeners.add(listener);
  }

  /**
   * Listeners get each application Xid (a client's own fault): it leaves the GPU healthy, but under
   * MPS it reaches every client of the GPU.
   */
  public void addApplicationFaultListener(Consumer<XidEvent> listener) {
    applicationFaults.add(listener);
  }

  public GpuCondition condition(String gpuUuid) {
    return conditions.getOrDefault(gpuUuid, GpuCondition.HEALTHY);
  }

  public Map<String, GpuCondition> conditions() {
    return Map.copyOf(conditions);
  }

  public synchronized void start(Collection<String> gpuUuids) {
    gpuUuids.forEach(u -> conditions.put(u, GpuCondition.HEALTHY));
    running = true;
    evaluateAll();
    poller = Thread.ofPlatform().daemon().name("gpu-health-poll").start(this::pollLoop);
    xidWatcher = Thread.ofPlatform().daemon().name("gpu-xid-events").start(this::xidLoop);
  }

  private void pollLoop() {
    while (running) {
      try {
        Thread.sleep(pollInterval);
        evaluateAll();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "GPU health poll failed; retrying", e);
      }
    }
  }

  private void xidLoop() {
    while (running) {
      try {
        Optional<XidEvent> event = nvml.awaitXid(Duration.ofSeconds(1));
        event.ifPresent(this::onXid);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "waiting for Xid events failed; retrying", e);
        sleepQuietly(pollInterval);
      }
    }
  }

  void onXid(XidEvent event) {
    if (APPLICATION_XIDS.contains(event.xid())) {
      LOG.info("Xid " + event.xid() + " on " + event.gpuUuid() + " is an application fault");
      for (Consumer<XidEvent> l : applicationFaults) {
        try {
          l.accept(event);
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "handling Xid " + event.xid() + " failed", e);
        }
      }
      return;
    }
    LOG.warning("critical Xid " + event.xid() + " on GPU " + event.gpuUuid());
    lastXid.put(event.gpuUuid(), new XidMark(event.xid(), clock.instant()));
    evaluateAll();
  }

  /** Re-reads every GPU's health now; listeners hear about it only if something changed. */
  public synchronized void evaluateAll() {
    boolean changed = false;
    for (String uuid : conditions.keySet()) {
      GpuCondition next = evaluate(uuid);
      GpuCondition previous = conditions.put(uuid, next);
      if (!next.equals(previous)) {
        changed = true;
        LOG.info(
            "GPU " + uuid + " is " + (next.healthy() ? "healthy" : "unhealthy: " + next.reason()));
      }
    }
    if (changed) {
      Map<String, GpuCondition> snapshot = Map.copyOf(conditions);
      listeners.forEach(l -> l.accept(snapshot));
    }
  }

  private GpuCondition evaluate(String uuid) {
    Optional<String> problem;
    try {
      problem = nvml.healthProblem(uuid);
    } catch (RuntimeException e) {
      problem = Optional.of("health query failed: " + e.getMessage());
    }
    if (problem.isPresent()) {
      return GpuCondition.unhealthy(problem.get());
    }
    XidMark mark = lastXid.get(uuid);
    if (mark != null && mark.at().plus(xidQuietPeriod).isAfter(clock.instant())) {
      return GpuCondition.unhealthy(
          "critical Xid "
              + mark.xid()
              + " at "
              + mark.at()
              + "; healthy again after "
              + xidQuietPeriod.toSeconds()
              + " s without another");
    }
    return GpuCondition.HEALTHY;
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized void close() {
    running = false;
    if (poller != null) {
      poller.interrupt();
      xidWatcher.interrupt();
    }
  }
}
