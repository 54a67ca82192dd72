package io.smslice.node.metrics;

import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.Nvml;
import io.smslice.node.nvml.NvmlGpu;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Each GPU's SM clock, power draw, clock-event (throttle) reasons and memory busy time, read from
 * NVML at scrape time. They are per GPU, labelled {@code gpu}: a claim's panels join them on the
 * claim's {@code gpu} label. A value NVML cannot read is left out rather than written as a number.
 */
public final class GpuActivityMetrics {
  private GpuActivityMetrics() {}

  public static void register(NodeMetrics metrics, Nvml nvml) {
    metrics.gauge(
        "smslice_node_gpu_sm_clock_hertz",
        "The GPU's SM clock now, from NVML.",
        () -> each(nvml, a -> a.smClockMhz(), 1e6));
    metrics.gauge(
        "smslice_node_gpu_power_watts",
        "The GPU board's power draw, from NVML.",
        () -> each(nvml, a -> a.powerMilliwatts(), 1e-3));
    metrics.gauge(
        "smslice_node_gpu_clock_event_active",
        "1 while NVML gives this reason for the GPU's clocks being below their maximum (idle,"
            + " power cap, thermal or hardware slowdown, ...), else 0.",
        () -> reasons(nvml));
    metrics.gauge(
        "smslice_node_gpu_memory_busy_ratio",
        "Share of NVML's last sample period the GPU's memory was read or written (0..1).",
        () -> each(nvml, a -> a.memoryBusyPercent(), 0.01));
  }

  private static Map<String, Double> each(
      Nvml nvml, ToLongFunction<GpuActivity> field, double scale) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (NvmlGpu g : nvml.gpus()) {
      nvml.activity(g.uuid())
          .map(field::applyAsLong)
          .filter(v -> v >= 0)
          .ifPresent(v -> out.put(gpu(g), v * scale));
    }
    return out;
  }

  private static Map<String, Double> reasons(Nvml nvml) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (NvmlGpu g : nvml.gpus()) {
      nvml.activity(g.uuid())
          .map(GpuActivity::clockEventReasons)
          .filter(mask -> mask >= 0)
          .ifPresent(
              mask ->
                  GpuActivity.REASONS.forEach(
                      (reason, bit) ->
                          out.put(
                              gpu(g) + ",reason=\"" + reason + "\"",
                              (mask & bit) != 0 ? 1.0 : 0.0)));
    }
    return out;
  }

  private static String gpu(NvmlGpu g) {
    return "gpu=\"" + g.uuid() + "\"";
  }
}
