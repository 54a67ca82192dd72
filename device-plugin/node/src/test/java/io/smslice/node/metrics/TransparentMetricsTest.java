package io.smslice.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.TenantProcess;
import io.smslice.node.nvml.GpuProcess;
import io.smslice.node.nvml.SimulatedNvml;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Per-claim metrics of unmodified programs, from the agent's registry and NVML. */
class TransparentMetricsTest {
  private static final String GPU = "GPU-aaaaaaaa-0000-4000-8000-000000000001";

  @Test
  void processesAndTheirGpuMemoryPerClaim() {
    SimulatedNvml nvml = new SimulatedNvml(List.of());
    nvml.setProcesses(
        GPU,
        List.of(
            new GpuProcess(700, 66L << 20), // the MPS server: no claim's
            new GpuProcess(4101, 2L << 30),
            new GpuProcess(4102, -1))); // NVML gives no figure: no sample
    NodeMetrics metrics = new NodeMetrics();
    List<ClaimState> claims =
        List.of(
            new ClaimState(
                "ml",
                "detector",
                GPU,
                List.of(0, 1),
                true,
                null,
                List.of(
                    new TenantProcess(4101, "c0ffee", "python3"),
                    new TenantProcess(4102, "c0ffee", "python3"),
                    new TenantProcess(-1, "", "unfound"))),
            new ClaimState(
                "ml", "broken", GPU, List.of(2), false, "worker did not start", List.of()));
    TransparentMetrics.register(metrics, () -> claims, nvml);

    String text = metrics.scrape();
    String detector = "namespace=\"ml\",claim=\"detector\",gpu=\"" + GPU + "\"";
    String broken = "namespace=\"ml\",claim=\"broken\",gpu=\"" + GPU + "\"";
    assertThat(text)
        .contains("# TYPE smslice_claim_transparent_processes gauge")
        .contains("smslice_claim_transparent_processes{" + detector + "} 3.0")
        .contains("smslice_claim_transparent_processes{" + broken + "} 0.0")
        .contains(
            "smslice_claim_transparent_process_memory_bytes{"
                + detector
                + ",pid=\"4101\",command=\"python3\"} 2.147483648E9")
        .doesNotContain("pid=\"4102\"")
        .doesNotContain("pid=\"700\"")
        .contains("smslice_claim_serving{" + detector + "} 1.0")
        .contains("smslice_claim_serving{" + broken + "} 0.0");
  }
}
