package io.smslice.examples.demo;

import io.smslice.examples.workload.LatencyStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Deadline misses of the latency-critical workloads in the demo's two phases: with slicing (from
 * the start until the "what if") and without (after it, on the simulated GPU only).
 *
 * <p>These are wall-clock latencies through the agent: on a host whose CPU is overloaded they
 * include its scheduling delays, so the demo reports them and does not judge them;
 * SimulatedDeadlineTest judges the simulated GPU's own verdict.
 *
 * @param lines one line per workload with a deadline, for the summary
 */
record DeadlinePhases(List<String> lines) {

  /**
   * @param atSwitch each pod's statistics when slicing was turned off; null when it never was
   */
  static DeadlinePhases of(
      Map<String, LatencyStats.Snapshot> atSwitch, Iterable<RunningWorkloads.Entry> workloads) {
    List<String> lines = new ArrayList<>();
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
      }
      lines.add(line);
    }
    return new DeadlinePhases(List.copyOf(lines));
  }

  private static double rate(long misses, long launches) {
    return launches == 0 ? 0 : (double) misses / launches;
  }
}
