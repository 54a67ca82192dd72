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

/** Renders the demo's state, read back from the API server and the running workloads. */
final class LiveTable {
  private final KubernetesClient client;
  private final RunningWorkloads workloads;
  private final String gpuLabel;

  LiveTable(KubernetesClient client, RunningWorkloads workloads, String gpuLabel) {
    this.client = client;
    this.workloads = workloads;
    this.gpuLabel = gpuLabel;
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
    out.append(
        String.format(
            Locale.ROOT,
            "%n%-18s %-16s %-9s %9s %9s %9s %8s %9s %8s %8s %s%n",
            "POD",
            "CLAIM",
            "PHASE",
            "LAUNCHES",
            "WALL-P50",
            "WALL-P99",
            "DEADLINE",
            "WALL-MISS",
            "GPU-P99",
            "GPU-MISS",
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

  private static String podRow(Pod pod, RunningWorkloads.Entry entry) {
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
    boolean modelled = s.modelled().launches() > 0;
    return String.format(
        Locale.ROOT,
        "%-18s %-16s %-9s %9d %9s %9s %8s %9s %8s %8s %s%n",
        pod.getMetadata().getName(),
        claim,
        phase,
        s.launches(),
        micros(s.p50()),
        micros(s.p99()),
        s.deadline() == 0 ? "-" : micros(s.deadline()),
        s.deadline() == 0 ? "-" : Long.toString(s.deadlineMisses()),
        modelled ? micros(s.modelled().p99()) : "-",
        modelled && s.deadline() != 0 ? Long.toString(s.modelled().deadlineMisses()) : "-",
        (s.smsSeen() == 0 ? "" : s.smsSeen() + " SMs  ") + entry.state);
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
