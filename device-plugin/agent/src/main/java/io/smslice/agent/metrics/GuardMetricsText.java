package io.smslice.agent.metrics;

import io.smslice.agent.guard.GpuGuard;
import io.smslice.protocol.GuardLayout;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Prometheus text of each GPU's interference guard, from its file: whether it is on, and per claim
 * (summed over its processes' slots) time held, holds, holds the cap ended, launches tracked,
 * latency-critical work in flight, the frame period a latency-critical claim is seen to keep (the
 * longest of its processes') and best-effort gates' closings ahead of frames and their misses.
 */
public final class GuardMetricsText {
  private GuardMetricsText() {}

  private record Claim(String gpu, String claim, String role) {}

  private record Sum(
      double held,
      long holds,
      long cuts,
      long launches,
      int busy,
      double period,
      long ahead,
      long missed) {
    static final Sum ZERO = new Sum(0, 0, 0, 0, 0, 0, 0, 0);

    Sum plus(GpuGuard.Slot s) {
      return new Sum(
          held + s.heldNanos() / 1e9,
          holds + s.holds(),
          cuts + s.capCuts(),
          launches + s.launched(),
          busy + (s.busy() ? 1 : 0),
          Math.max(period, s.periodNanos() / 1e9),
          ahead + s.ahead(),
          missed + s.aheadMissed());
    }
  }

  /** {@code guards}: GPU UUID to its guard; empty text when there is none. */
  public static String render(Map<String, GpuGuard> guards) {
    if (guards.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append("# HELP smslice_guard_enabled 1 while the GPU's interference guard is on.\n")
        .append("# TYPE smslice_guard_enabled gauge\n");
    Map<Claim, Sum> sums = new TreeMap<>(java.util.Comparator.comparing(Claim::toString));
    new TreeMap<>(guards)
        .forEach(
            (gpu, guard) -> {
              out.append("smslice_guard_enabled{gpu=\"")
                  .append(gpu)
                  .append("\"} ")
                  .append(guard.enabled() ? 1 : 0)
                  .append('\n');
              for (GpuGuard.Slot s : guard.slots()) {
                String role =
                    s.role() == GuardLayout.ROLE_LATENCY_CRITICAL
                        ? "LatencyCritical"
                        : s.role() == GuardLayout.ROLE_BEST_EFFORT ? "BestEffort" : "unknown";
                Claim key = new Claim(gpu, s.claim(), role);
                sums.put(key, sums.getOrDefault(key, Sum.ZERO).plus(s));
              }
            });
    series(
        out,
        sums,
        "smslice_guard_held_seconds_total",
        "counter",
        "Time best-effort work was held.",
        Sum::held);
    series(
        out,
        sums,
        "smslice_guard_holds_total",
        "counter",
        "Best-effort launches that waited.",
        s -> s.holds);
    series(
        out,
        sums,
        "smslice_guard_cap_cuts_total",
        "counter",
        "Holds ended by the hold or share limit.",
        s -> s.cuts);
    series(
        out,
        sums,
        "smslice_guard_launches_total",
        "counter",
        "Launches the guard tracked.",
        s -> s.launches);
    series(
        out,
        sums,
        "smslice_guard_critical_in_flight",
        "gauge",
        "Processes of a latency-critical claim with work in flight.",
        s -> s.busy);
    series(
        out,
        sums,
        "smslice_guard_frame_period_seconds",
        "gauge",
        "Period of a latency-critical claim's frames while it keeps one; 0 otherwise.",
        Sum::period);
    series(
        out,
        sums,
        "smslice_guard_ahead_closings_total",
        "counter",
        "Best-effort gate closings ahead of a periodic latency-critical frame.",
        s -> s.ahead);
    series(
        out,
        sums,
        "smslice_guard_ahead_missed_total",
        "counter",
        "Of those, closings in which no latency-critical work began.",
        s -> s.missed);
    return out.toString();
  }

  private static void series(
      StringBuilder out,
      Map<Claim, Sum> sums,
      String name,
      String type,
      String help,
      ToDoubleFunction<Sum> value) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    sums.forEach(
        (c, s) ->
            out.append(name)
                .append("{gpu=\"")
                .append(c.gpu())
                .append("\",claim=\"")
                .append(c.claim().replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\",priority=\"")
                .append(c.role())
                .append("\"} ")
                .append(trim(value.applyAsDouble(s)))
                .append('\n'));
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
