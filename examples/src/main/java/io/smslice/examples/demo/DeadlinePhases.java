package io.smslice.examples.demo;

import io.smslice.examples.workload.LatencyStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Deadline misses of the latency-critical workloads in the demo's two phases: with slicing (from
 * the start until the "what if") and without (after it, on the simulated GPU only).
 *
 * @param lines one line per workload with a deadline, for the summary
 * @param problems slicing did not keep a deadline workload under 1% misses, or the "what if" did
 *     not push it over 1% (then the demo would not show what slicing is for)
 */
record DeadlinePhases(List<String> lines, List<String> problems) {
  /** The workloads whose deadlines the demo is about. */
  static final Set<String> CHECKED_KINDS = Set.of("detector", "ensemble-model");

  static final double LIMIT = 0.01;

  /**
   * @param atSwitch each pod's statistics when slicing was turned off; null when it never was
   */
  static DeadlinePhases of(
      Map<String, LatencyStats.Snapshot> atSwitch, Iterable<RunningWorkloads.Entry> workloads) {
    List<String> lines = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (RunningWorkloads.Entry e : workloads) {
      LatencyStats.Snapshot end = e.stats.snapshot();
      if (end.deadline() <= 0) {
        continue;
      }
      LatencyStats.Snapshot before = atSwitch == null ? end : atSwitch.get(e.pod);
      if (before == null) {
        before = new LatencyStats.Snapshot(0, 0, 0, 0, end.deadline(), 0);
      }
      double sliced = rate(before.deadlineMisses(), before.launches());
      String line =
          String.format(
              Locale.ROOT,
              "deadline %.1f ms, %s: with slicing %d/%d missed (%.2f%%)",
              end.deadline() / 1e6,
              e.pod,
              before.deadlineMisses(),
              before.launches(),
              100 * sliced);
      boolean checked = CHECKED_KINDS.contains(e.kind);
      if (checked && before.launches() > 0 && sliced >= LIMIT) {
        problems.add(e.pod + " missed " + pct(sliced) + " of its deadlines with slicing");
      }
      if (atSwitch != null) {
        long misses = end.deadlineMisses() - before.deadlineMisses();
        long launches = end.launches() - before.launches();
        double unsliced = rate(misses, launches);
        line +=
            String.format(
                Locale.ROOT,
                "; without slicing %d/%d missed (%.2f%%)",
                misses,
                launches,
                100 * unsliced);
        if (checked && unsliced <= LIMIT) {
          problems.add(
              e.pod
                  + " missed only "
                  + pct(unsliced)
                  + " without slicing: the what-if showed nothing");
        }
      }
      lines.add(line);
    }
    return new DeadlinePhases(List.copyOf(lines), List.copyOf(problems));
  }

  private static double rate(long misses, long launches) {
    return launches == 0 ? 0 : (double) misses / launches;
  }

  private static String pct(double rate) {
    return String.format(Locale.ROOT, "%.2f%%", 100 * rate);
  }
}
