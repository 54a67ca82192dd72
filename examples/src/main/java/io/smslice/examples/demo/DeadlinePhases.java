package io.smslice.examples.demo;

import io.smslice.examples.workload.LatencyStats.Modelled;
import io.smslice.examples.workload.LatencyStats.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Deadline misses of the latency-critical workloads in the demo's two phases: with slicing (from
 * the start until the "what if") and without (after it, on the simulated GPU only).
 *
 * <p>Two latencies per frame, reported side by side and never mixed: the wall clock through the
 * agent, which includes everything this host's CPU added (on an overloaded host, most of it), and
 * on the simulated GPU the modelled GPU-side latency (the frame's kernels' waits for SMs plus their
 * durations), which is what slicing controls. The verdict on the simulated GPU is the modelled one:
 * under 1% misses with slicing and over 1% without for every deadline workload; the wall-clock
 * misses are shown, not judged, because they depend on the host more than on the GPU.
 *
 * @param lines one line per workload with a deadline, for the summary
 * @param modelled per workload judged in modelled GPU time, its miss rates in the two phases
 * @param problems the modelled verdicts that failed (empty on a real GPU)
 */
record DeadlinePhases(List<String> lines, List<MissRates> modelled, List<String> problems) {

  /** Fractions of frames that missed the deadline in modelled GPU time; -1 for a phase not run. */
  record MissRates(String pod, double withSlicing, double withoutSlicing) {}

  /** The miss rate the slices must stay under, and the unsliced GPU must exceed. */
  static final double VERDICT_RATE = 0.01;

  /**
   * @param atSwitch each pod's statistics when slicing was turned off; null when it never was
   */
  static DeadlinePhases of(
      Map<String, Snapshot> atSwitch, Iterable<RunningWorkloads.Entry> workloads) {
    List<String> lines = new ArrayList<>();
    List<MissRates> rates = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (RunningWorkloads.Entry e : workloads) {
      Snapshot end = e.stats.snapshot();
      if (end.deadline() <= 0) {
        continue;
      }
      Snapshot before = atSwitch == null ? end : atSwitch.get(e.pod);
      if (before == null) {
        before = new Snapshot(0, 0, 0, 0, end.deadline(), 0, Modelled.NONE);
      }
      Snapshot after = atSwitch == null ? null : minus(end, before);
      boolean modelled = end.modelled().launches() > 0;
      String line =
          String.format(
              Locale.ROOT,
              "deadline %.1f ms, %s: with slicing %s",
              end.deadline() / 1e6,
              e.pod,
              phase(before, modelled));
      if (after != null) {
        line += "; without slicing " + phase(after, modelled);
      }
      if (modelled) {
        line +=
            String.format(
                Locale.ROOT,
                "; this host added p50 %.2f ms, p99 %.2f ms to its recent frames",
                end.modelled().hostAddedP50() / 1e6,
                end.modelled().hostAddedP99() / 1e6);
        rates.add(
            new MissRates(
                e.pod,
                rate(before.modelled().deadlineMisses(), before.modelled().launches()),
                after == null
                    ? -1
                    : rate(after.modelled().deadlineMisses(), after.modelled().launches())));
        verdict(e.pod, "with slicing", before.modelled(), false, problems);
        if (after != null) {
          verdict(e.pod, "without slicing", after.modelled(), true, problems);
        }
      }
      lines.add(line);
    }
    return new DeadlinePhases(List.copyOf(lines), List.copyOf(rates), List.copyOf(problems));
  }

  /** One phase: modelled GPU-side misses first where there are any, then the wall clock's. */
  private static String phase(Snapshot s, boolean modelled) {
    String wall =
        String.format(
            Locale.ROOT,
            "%d/%d missed (%.2f%%)",
            s.deadlineMisses(),
            s.launches(),
            100 * rate(s.deadlineMisses(), s.launches()));
    if (!modelled) {
      return wall;
    }
    Modelled m = s.modelled();
    return String.format(
        Locale.ROOT,
        "%d/%d missed (%.2f%%) in modelled GPU time, %s on the wall clock",
        m.deadlineMisses(),
        m.launches(),
        100 * rate(m.deadlineMisses(), m.launches()),
        wall);
  }

  private static void verdict(
      String pod, String phase, Modelled m, boolean shouldMiss, List<String> problems) {
    double rate = rate(m.deadlineMisses(), m.launches());
    if (m.launches() == 0) {
      problems.add(pod + " completed no frames " + phase);
    } else if (!shouldMiss && rate >= VERDICT_RATE) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%s missed %.2f%% of its deadlines %s in modelled GPU time (must be under 1%%)",
              pod,
              100 * rate,
              phase));
    } else if (shouldMiss && rate <= VERDICT_RATE) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%s missed only %.2f%% of its deadlines %s in modelled GPU time (the what-if shows"
                  + " nothing)",
              pod,
              100 * rate,
              phase));
    }
  }

  /** The counts of the phase after the switch (percentiles are not subtracted, so left 0). */
  private static Snapshot minus(Snapshot end, Snapshot before) {
    Modelled e = end.modelled();
    Modelled b = before.modelled();
    return new Snapshot(
        end.launches() - before.launches(),
        0,
        0,
        end.deadlineMisses() - before.deadlineMisses(),
        end.deadline(),
        end.smsSeen(),
        new Modelled(
            e.launches() - b.launches(), e.deadlineMisses() - b.deadlineMisses(), 0, 0, 0, 0));
  }

  private static double rate(long misses, long launches) {
    return launches == 0 ? 0 : (double) misses / launches;
  }
}
