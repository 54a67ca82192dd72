package io.smslice.node.metrics;

import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.ClaimStates;
import io.smslice.node.claims.TenantProcess;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.Nvml;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-claim metrics of unmodified programs: processes attached through the interposer (from the
 * agent), the GPU memory NVML reports for each of them, and ({@link GpuActivityMetrics}) the SM
 * clock, power and clock-event reasons of the GPUs they run on. The claim's SMs are the agent's
 * smslice_claim_sms; the guard's holds are the agent's smslice_guard_* series.
 */
public final class TransparentMetrics {
  private TransparentMetrics() {}

  public static void register(NodeMetrics metrics, ClaimStates claims, Nvml nvml) {
    metrics.gauge(
        "smslice_claim_serving",
        "1 when the node serves the claim (green context or worker ready), 0 when it cannot.",
        () -> {
          Map<String, Double> out = new LinkedHashMap<>();
          claims.claims().forEach(c -> out.put(labels(c), c.serving() ? 1.0 : 0.0));
          return out;
        });
    metrics.gauge(
        "smslice_claim_transparent_processes",
        "Unmodified programs' processes running in the claim's slice through the interposer.",
        () -> {
          Map<String, Double> out = new LinkedHashMap<>();
          claims.claims().forEach(c -> out.put(labels(c), (double) c.processes().size()));
          return out;
        });
    metrics.gauge(
        "smslice_claim_transparent_process_memory_bytes",
        "GPU memory of each attached process, as NVML reports it (processes NVML lists only).",
        () -> memory(claims.claims(), nvml));
    GpuActivityMetrics.register(metrics, nvml);
  }

  private static Map<String, Double> memory(List<ClaimState> claims, Nvml nvml) {
    Map<String, Map<Integer, Long>> byGpu = new HashMap<>();
    Map<String, Double> out = new LinkedHashMap<>();
    for (ClaimState c : claims) {
      if (c.processes().isEmpty()) {
        continue;
      }
      Map<Integer, Long> used =
          byGpu.computeIfAbsent(
              c.gpuUuid(),
              gpu -> {
                Map<Integer, Long> m = new HashMap<>();
                for (GpuProcess p : nvml.computeProcesses(gpu)) {
                  m.put(p.pid(), p.usedMemoryBytes());
                }
                return m;
              });
      for (TenantProcess p : c.processes()) {
        Long bytes = used.get(p.hostPid());
        if (p.hostPid() > 0 && bytes != null && bytes >= 0) {
          out.put(
              labels(c) + ",pid=\"" + p.hostPid() + "\",command=\"" + escape(p.command()) + "\"",
              (double) bytes);
        }
      }
    }
    return out;
  }

  private static String labels(ClaimState c) {
    return "namespace=\""
        + c.namespace()
        + "\",claim=\""
        + c.name()
        + "\",gpu=\""
        + c.gpuUuid()
        + "\"";
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
