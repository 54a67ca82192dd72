package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.examples.workload.LatencyStats;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders the demo's state, read back from the API server and the running workloads. On the
 * simulated GPU the verdict is the modelled GPU time (what slicing controls), so those columns come
 * first and the wall clock, which this host's CPU contention inflates, is labelled as the host's.
 */
final class LiveTable {
  private static final String POD_ROW = "%-18s %-16s %-9s %9s %8s %9s %9s %9s %9s %9s %s%n";
  private final KubernetesClient client;
  private final RunningWorkloads workloads;
  private final String gpuLabel;
  private final boolean simulated;

  LiveTable(
      KubernetesClient client, RunningWorkloads workloads, String gpuLabel, boolean simulated) {
    this.client = client;
    this.workloads = workloads;
    this.gpuLabel = gpuLabel;
    this.simulated = simulated;
  }

  String render(double elapsedSeconds, String event) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT, "smslice demo  t=%5.1fs  GPU: %s%n%n", elapsedSeconds, gpuLabel));
    out.append(
        String.format(
            Locale.ROOT,
            "%-18s %-9s %5s %5s %-12s %-14s %-6s %s%n",
            "CLAIM",
            "PHASE",
            "WANT",
            "SMS",
            "NODE",
            "GPU",
            "MODE",
            "SM GROUPS / MESSAGE"));
    List<SliceClaim> claims =
        client.resources(SliceClaim.class).inAnyNamespace().list().getItems().stream()
            .sorted(Comparator.comparing(c -> c.getMetadata().getName()))
            .toList();
    for (SliceClaim claim : claims) {
      out.append(claimRow(claim));
    }
    out.append(System.lineSeparator()).append(legend()).append(System.lineSeparator());
    out.append(
        simulated
            ? String.format(
                Locale.ROOT,
                POD_ROW,
                "POD",
                "CLAIM",
                "PHASE",
                "LAUNCHES",
                "DEADLINE",
                "GPU-P99",
                "GPU-MISS",
                "HOST-P50",
                "HOST-P99",
                "HOST-MISS",
                "SMS SEEN / STATE")
            : String.format(
                Locale.ROOT,
                POD_ROW,
                "POD",
                "CLAIM",
                "PHASE",
                "LAUNCHES",
                "DEADLINE",
                "P99",
                "MISSES",
                "P50",
                "",
                "",
                "SMS SEEN / STATE"));
    Map<String, Pod> pods =
        client.pods().inAnyNamespace().list().getItems().stream()
            .collect(Collectors.toMap(p -> p.getMetadata().getName(), p -> p, (a, b) -> a));
    for (Pod pod :
        pods.values().stream()
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .toList()) {
      out.append(podRow(pod, workloads.get(pod.getMetadata().getName())));
    }
    if (!event.isEmpty()) {
      out.append(System.lineSeparator()).append(event).append(System.lineSeparator());
    }
    return out.toString();
  }

  private static String claimRow(SliceClaim claim) {
    var status = claim.getStatus();
    Binding b = status == null ? null : status.getBinding();
    String phase = status == null || status.getPhase() == null ? "-" : status.getPhase().name();
    String detail;
    if (b != null && b.getMigProfile() != null) {
      detail = "MIG " + b.getMigProfile() + " " + nullToDash(b.getMigDeviceUuid());
    } else if (b != null && !b.getSmGroups().isEmpty()) {
      detail = "groups " + b.getSmGroups();
    } else {
      detail = status == null || status.getMessage() == null ? "" : status.getMessage();
    }
    return String.format(
        Locale.ROOT,
        "%-18s %-9s %5s %5s %-12s %-14s %-6s %s%n",
        claim.getMetadata().getName(),
        phase,
        claim.getSpec().getSms() == null ? "-" : claim.getSpec().getSms(),
        b == null || b.getSms() == null ? "-" : b.getSms(),
        b == null ? "-" : b.getNode(),
        b == null ? "-" : shortUuid(b.getGpuUuid()),
        b == null || b.getMode() == null ? "-" : b.getMode().name(),
        detail);
  }

  private String podRow(Pod pod, RunningWorkloads.Entry entry) {
    String phase = pod.getStatus() == null ? "-" : nullToDash(pod.getStatus().getPhase());
    if ("Pending".equals(phase) && pod.getSpec().getNodeName() == null) {
      phase = "Pending*";
    }
    String claim =
        pod.getMetadata().getAnnotations() == null
            ? "-"
            : pod.getMetadata().getAnnotations().getOrDefault(SmsliceApi.CLAIM_ANNOTATION, "-");
    if (entry == null) {
      return String.format(
          Locale.ROOT, "%-18s %-16s %-9s %s%n", pod.getMetadata().getName(), claim, phase, "");
    }
    LatencyStats.Snapshot s = entry.stats.snapshot();
    boolean judged = s.deadline() != 0;
    String deadline = judged ? micros(s.deadline()) : "-";
    String wallMisses = judged ? Long.toString(s.deadlineMisses()) : "-";
    String seen = (s.smsSeen() == 0 ? "" : s.smsSeen() + " SMs  ") + entry.state;
    if (!simulated) {
      return String.format(
          Locale.ROOT,
          POD_ROW,
          pod.getMetadata().getName(),
          claim,
          phase,
          s.launches(),
          deadline,
          micros(s.p99()),
          wallMisses,
          micros(s.p50()),
          "",
          "",
          seen);
    }
    boolean modelled = s.modelled().launches() > 0;
    return String.format(
        Locale.ROOT,
        POD_ROW,
        pod.getMetadata().getName(),
        claim,
        phase,
        s.launches(),
        deadline,
        modelled ? micros(s.modelled().p99()) : "-",
        modelled && judged ? Long.toString(s.modelled().deadlineMisses()) : "-",
        micros(s.p50()),
        micros(s.p99()),
        wallMisses,
        seen);
  }

  private String legend() {
    return simulated
        ? "GPU-P99 / GPU-MISS: each frame's GPU time, modelled from H200 measurements: the verdict"
            + " (what slicing controls). HOST-*: this machine's wall clock, which adds its own CPU"
            + " contention."
        : "P99 / MISSES / P50: from submit to completion on the wall clock, on the real GPU.";
  }

  private static String micros(long nanos) {
    if (nanos == 0) {
      return "-";
    }
    return nanos >= 10_000_000
        ? String.format(Locale.ROOT, "%.1fms", nanos / 1e6)
        : String.format(Locale.ROOT, "%.0fus", nanos / 1e3);
  }

  private static String shortUuid(String uuid) {
    // The end of the UUID tells the GPUs of one node apart.
    return uuid == null
        ? "-"
        : uuid.length() > 14 ? "GPU-.." + uuid.substring(uuid.length() - 8) : uuid;
  }

  private static String nullToDash(String s) {
    return s == null ? "-" : s;
  }
}
