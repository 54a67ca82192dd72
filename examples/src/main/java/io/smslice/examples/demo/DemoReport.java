package io.smslice.examples.demo;

import io.smslice.examples.workload.LatencyStats;
import java.util.List;
import java.util.Map;

/**
 * What a demo run showed, for its closing summary and for the test that runs it.
 *
 * @param claimSteps each claim's phases in order, with the SMs bound
 * @param podNodes each pod's node ("" when never bound)
 * @param allocations per pod, the devices the demo kubelet allocated through the device plugin
 * @param workloads each started workload's statistics at the end
 * @param workloadStates each started workload's last state line
 * @param launchesBeforeResize the resized workload's launches when the resize was requested
 * @param backend the node side's GPU backend ("simulated" without a GPU)
 * @param deadlines per deadline workload, its misses with slicing and (simulated) without
 * @param guard the latency-critical tails and best-effort rates with the guard off and on
 * @param problems what went wrong, empty when every check passed
 */
record DemoReport(
    Map<String, List<ClaimHistory.Step>> claimSteps,
    Map<String, String> podNodes,
    Map<String, List<String>> allocations,
    Map<String, LatencyStats.Snapshot> workloads,
    Map<String, String> workloadStates,
    long launchesBeforeResize,
    String backend,
    DeadlinePhases deadlines,
    GuardPhases guard,
    List<String> problems) {

  boolean ok() {
    return problems.isEmpty();
  }
}
