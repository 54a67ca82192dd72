package io.smslice.agent.verify;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 11, finding 15: the in-agent cross-claim-read row measures, so it can fail. */
class CrossClaimReadRowTest {
  @TempDir Path directory;

  @Test
  void theRowPassesOnlyWhenTheNeighboursValueIsRead() {
    Report report = new Report();
    ClaimChecks.checkCrossRead(report, "read 0x00000000", 0);
    ClaimChecks.checkCrossRead(report, "the read failed: FAULT", null);
    ClaimChecks.checkCrossRead(report, "read 0x5a5a5a5a", ClaimChecks.SECRET);

    String table = report.render("#");
    assertThat(table.lines().filter(l -> l.endsWith("| FAIL |"))).hasSize(2);
    assertThat(table.lines().filter(l -> l.endsWith("| PASS |"))).hasSize(1);
  }

  @Test
  void theRowMeasuresARealReadThroughTheAgent() throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    AgentOptions options =
        new AgentOptions(
            "node-a",
            directory.resolve("run"),
            directory.resolve("state"),
            RunMode.IN_AGENT,
            1 << 20,
            8,
            1 << 20);
    Report report = new Report();
    try (Agent agent = Agent.start(options, null, backend, null)) {
      ClaimChecks checks =
          new ClaimChecks(
              agent,
              backend,
              Files.readAllBytes(Path.of("verify/kernels.ptx")),
              report,
              "in-agent");
      try (SmsliceClient victim = checks.serveAndConnect("victim", checks.victimGroups);
          SmsliceClient reader = checks.serveAndConnect("reader", checks.aggressorGroups)) {
        checks.crossClaimReadInAgent(victim, reader);
      }
    }

    // The simulated backend keeps one address space per GPU, as in-agent CUDA does.
    assertThat(report.render("#")).contains("read 0x5a5a5a5a").contains("| PASS |");
  }
}
