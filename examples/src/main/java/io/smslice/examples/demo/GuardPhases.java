package io.smslice.examples.demo;

import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.examples.workload.LatencyStats;
import io.smslice.examples.workload.LatencyStats.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The demo's two phases with slicing on: the interference guard off (from the start) and then let
 * on (until the what-if, or the end). Per latency-critical workload its tail in each phase, per
 * best-effort workload its launches per second. On the simulated GPU the tail is the modelled
 * GPU-side one and the interference-guard example's pair is judged: the inference's p99 must be at
 * least 5% better with the guard on, and its neighbour must still make progress.
 */
final class GuardPhases {
  /** The interference-guard example's claims (examples/interference-guard). */
  static final String GUARDED = "inference";

  static final String NEIGHBOUR = "neighbour";

  /** With the guard on, the guarded p99 at most this fraction of the p99 with it off. */
  static final double BETTER = 0.95;

  /** One workload over one phase: frames (or launches), deadline misses, p99 in nanoseconds. */
  record Tail(long frames, long misses, long p99, double perSecond) {}

  /** A best-effort pod's rate over a time span (nanoTime), when it reports one (--gpu). */
  interface Rates {
    OptionalDouble mean(String pod, long from, long to);
  }

  private final RunningWorkloads workloads;
  private final Map<String, Priority> priorities;
  private final boolean modelled;
  private final Rates rates;
  private long cutAt;
  private Map<String, Snapshot> cut = Map.of();
  private Map<String, Tail> off;
  private Map<String, Tail> on;

  /**
   * @param priorities each claim's priority
   * @param modelled whether the tails are modelled GPU time (the simulated GPU)
   */
  GuardPhases(
      RunningWorkloads workloads, Map<String, Priority> priorities, boolean modelled, Rates rates) {
    this.workloads = workloads;
    this.priorities = priorities;
    this.modelled = modelled;
    this.rates = rates;
  }

  /** The guard-off phase starts (the live loop's start). */
  synchronized void begin() {
    cut = snapshots();
    cutAt = System.nanoTime();
  }

  /** The guard is let on: the off phase ends. */
  synchronized void guardOn() {
    off = close();
  }

  /** The on phase ends (the what-if, or the end of the run); once. */
  synchronized void end() {
    if (off != null && on == null) {
      on = close();
    }
  }

  synchronized boolean started() {
    return off != null;
  }

  private Map<String, Snapshot> snapshots() {
    Map<String, Snapshot> now = new LinkedHashMap<>();
    workloads.all().forEach(e -> now.put(e.pod, e.stats.snapshot()));
    return now;
  }

  private Map<String, Tail> close() {
    long now = System.nanoTime();
    double seconds = Math.max(1e-9, (now - cutAt) / 1e9);
    Map<String, Tail> tails = new LinkedHashMap<>();
    for (RunningWorkloads.Entry e : workloads.all()) {
      Snapshot before = cut.get(e.pod);
      Snapshot end = e.stats.snapshot();
      LatencyStats.Modelled b = before == null ? LatencyStats.Modelled.NONE : before.modelled();
      long launches = end.launches() - (before == null ? 0 : before.launches());
      Tail tail =
          modelled && end.modelled().launches() > 0
              ? new Tail(
                  end.modelled().launches() - b.launches(),
                  end.modelled().deadlineMisses() - b.deadlineMisses(),
                  e.stats.modelledP99Since(b.launches()),
                  launches / seconds)
              : new Tail(
                  launches,
                  end.deadlineMisses() - (before == null ? 0 : before.deadlineMisses()),
                  e.stats.p99Since(before == null ? 0 : before.launches()),
                  rates.mean(e.pod, cutAt, now).orElse(launches / seconds));
      tails.put(e.pod, tail);
    }
    cut = snapshots();
    cutAt = now;
    return tails;
  }

  /** Summary lines: the latency-critical tails, then the best-effort rates, off against on. */
  synchronized List<String> lines() {
    List<String> lines = new ArrayList<>();
    if (off == null || on == null) {
      return lines;
    }
    String clock = modelled ? "in modelled GPU time" : "on the wall clock";
    for (RunningWorkloads.Entry e : workloads.all()) {
      Tail a = off.get(e.pod);
      Tail b = on.get(e.pod);
      Priority priority = priorities.get(e.claim);
      if (a == null || b == null || priority == null) {
        continue;
      }
      if (priority == Priority.LatencyCritical && e.stats.snapshot().deadline() > 0) {
        lines.add(
            String.format(
                Locale.ROOT,
                "guard, %s (LatencyCritical): p99 %.3f ms with the guard off, %.3f ms on (%.2fx),"
                    + " %d/%d and %d/%d deadline misses, %s",
                e.pod,
                a.p99() / 1e6,
                b.p99() / 1e6,
                ratio(b.p99(), a.p99()),
                a.misses(),
                a.frames(),
                b.misses(),
                b.frames(),
                clock));
      } else if (priority == Priority.BestEffort) {
        lines.add(
            String.format(
                Locale.ROOT,
                "guard, %s (BestEffort): %.1f launches (or steps) per second with the guard off, %.1f on"
                    + " (%.2fx)",
                e.pod,
                a.perSecond(),
                b.perSecond(),
                ratio(b.perSecond(), a.perSecond())));
      }
    }
    return lines;
  }

  /** On the simulated GPU: the guard example's verdict; nothing is judged on a real GPU. */
  synchronized List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!modelled) {
      return problems;
    }
    if (off == null || on == null) {
      problems.add("the run ended before the guard phase");
      return problems;
    }
    Tail a = off.get(GUARDED);
    Tail b = on.get(GUARDED);
    if (a == null || b == null || a.frames() == 0 || b.frames() == 0) {
      problems.add(GUARDED + " completed no frames in one of the guard's phases");
    } else if (b.p99() > BETTER * a.p99()) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%s's modelled p99 was %.3f ms with the guard on against %.3f ms off (must be at"
                  + " most %.2fx)",
              GUARDED,
              b.p99() / 1e6,
              a.p99() / 1e6,
              BETTER));
    }
    Tail n = on.get(NEIGHBOUR);
    if (n == null || n.frames() == 0) {
      problems.add(NEIGHBOUR + " made no progress with the guard on");
    }
    return problems;
  }

  /** The tails of the two phases, for the tests; null before each ends. */
  synchronized Map<String, Tail> off() {
    return off;
  }

  synchronized Map<String, Tail> on() {
    return on;
  }

  private static double ratio(double a, double b) {
    return b == 0 ? 0 : a / b;
  }
}
