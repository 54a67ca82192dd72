package io.smslice.node.transparent;

import io.smslice.node.config.GuardGating;
import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.Nvml;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The NVML pressure gate of the interference guard ({@code transparent.guard.onlyUnderPressure}):
 * holding best-effort work costs it throughput, which only pays while there is something to protect
 * the latency-critical tenants from. A GPU is under pressure while the power or thermal limit holds
 * its clocks down, or while its memory is busy for at least {@code memoryBusyPercent} of NVML's
 * sample period; the gate stays open for {@code hold} after the last such sample.
 */
public final class GuardPressure implements Predicate<String>, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(GuardPressure.class.getName());

  private final Nvml nvml;
  private final GuardGating gating;
  private final LongSupplier nanos;
  private final Map<String, Long> lastPressure = new ConcurrentHashMap<>();
  private final Set<String> open = ConcurrentHashMap.newKeySet();
  private volatile Thread sampler;

  public GuardPressure(Nvml nvml, GuardGating gating, LongSupplier nanos) {
    this.nvml = nvml;
    this.gating = gating;
    this.nanos = nanos;
  }

  /** Whether the GPU's guard may be on now. */
  @Override
  public boolean test(String gpuUuid) {
    return open.contains(gpuUuid);
  }

  /** Reads each GPU once; true when the gate of any of them opened or closed. */
  public boolean sample(List<String> gpuUuids) {
    long now = nanos.getAsLong();
    boolean changed = false;
    for (String gpu : gpuUuids) {
      if (nvml.activity(gpu).map(this::underPressure).orElse(false)) {
        lastPressure.put(gpu, now);
      }
      Long last = lastPressure.get(gpu);
      boolean allow = last != null && now - last <= gating.hold().toNanos();
      changed |= allow ? open.add(gpu) : open.remove(gpu);
    }
    return changed;
  }

  private boolean underPressure(GpuActivity a) {
    return a.powerOrThermalLimited() || a.memoryBusyPercent() >= gating.memoryBusyPercent();
  }

  /** Samples every {@code period} on a daemon thread and runs {@code onChange} after a change. */
  public synchronized void start(List<String> gpuUuids, Duration period, Runnable onChange) {
    sampler =
        Thread.ofPlatform()
            .daemon()
            .name("guard-pressure")
            .start(
                () -> {
                  while (!Thread.currentThread().isInterrupted()) {
                    try {
                      if (sample(gpuUuids)) {
                        onChange.run();
                      }
                      Thread.sleep(period);
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      LOG.log(Level.WARNING, "guard pressure sample failed; trying again", e);
                    }
                  }
                });
  }

  @Override
  public synchronized void close() {
    if (sampler != null) {
      sampler.interrupt();
    }
  }
}
