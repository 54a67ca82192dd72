package io.smslice.operator.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.operator.placement.GpuUsage;
import io.smslice.operator.placement.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's Prometheus metrics (names in docs/operator.md): claims by phase, placement
 * latency, SMs allocated and free per GPU, fragmentation of free green SMs.
 */
public class SliceMetrics {
  private final Map<String, Phase> phases = new ConcurrentHashMap<>();
  private final Timer placement;
  private final MultiGauge allocated;
  private final MultiGauge free;
  private volatile double fragmentation;

  public SliceMetrics(MeterRegistry registry) {
    for (Phase p : Phase.values()) {
      Gauge.builder("smslice.claims", phases, m -> count(m, p))
          .description("SliceClaims known to the operator, by phase")
          .tag("phase", p.name())
          .register(registry);
    }
    placement =
        Timer.builder("smslice.placement")
            .description("Time to decide and record one claim's placement")
            .publishPercentileHistogram()
            .register(registry);
    allocated =
        MultiGauge.builder("smslice.gpu.sms.allocated")
            .description("SMs of a GPU held by claims (MPS: shares in SMs)")
            .register(registry);
    free =
        MultiGauge.builder("smslice.gpu.sms.free")
            .description("SMs of a GPU free for new claims (MPS: shares in SMs)")
            .register(registry);
    Gauge.builder("smslice.fragmentation.ratio", this, m -> m.fragmentation)
        .description(
            "1 - (largest free SMs on one healthy green GPU / free SMs on all of them); 0 when"
                + " nothing is free")
        .register(registry);
  }

  public void phase(String claim, Phase phase) {
    phases.put(claim, phase);
  }

  public void forget(String claim) {
    phases.remove(claim);
  }

  public void placement(Duration took) {
    placement.record(took);
  }

  public void gpus(List<GpuUsage> usage) {
    List<MultiGauge.Row<?>> used = new ArrayList<>();
    List<MultiGauge.Row<?>> open = new ArrayList<>();
    long totalFree = 0;
    long largestFree = 0;
    for (GpuUsage u : usage) {
      Tags tags = Tags.of("node", u.node(), "gpu", u.uuid(), "mode", u.mode().name());
      used.add(MultiGauge.Row.of(tags, u.capacitySms() - u.freeSms()));
      open.add(MultiGauge.Row.of(tags, u.healthy() ? u.freeSms() : 0));
      if (u.mode() == Mode.GREEN && u.healthy()) {
        totalFree += u.freeSms();
        largestFree = Math.max(largestFree, u.freeSms());
      }
    }
    allocated.register(used, true);
    free.register(open, true);
    fragmentation = totalFree == 0 ? 0 : 1.0 - (double) largestFree / totalFree;
  }

  private static double count(Map<String, Phase> phases, Phase p) {
    return phases.values().stream().filter(p::equals).count();
  }
}
