package io.smslice.agent.verify;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The agent's verification on a GPU: one run, one table (see verify/run-on-gpu.sh). Usage: {@code
 * GpuVerification <cuda|simulated> <kernels.ptx> <work dir> <result file>}.
 */
public final class GpuVerification {
  private GpuVerification() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println(
          "usage: GpuVerification <cuda|simulated> <kernels.ptx> <work dir> <result>");
      System.exit(2);
    }
    byte[] kernels = Files.readAllBytes(Path.of(args[1]));
    Path work = Path.of(args[2]);
    Report report = new Report();
    GpuBackend backend = Backends.open(args[0]);
    GpuDevice gpu = backend.devices().getFirst();
    String header =
        "# smslice agent verification\n\n"
            + "Date: "
            + Instant.now()
            + "  \n"
            + "Backend: "
            + backend.backendName()
            + (backend.simulated() ? " (SIMULATED: numbers below say nothing about a GPU)" : "")
            + "  \nGPU: "
            + gpu.product()
            + " "
            + gpu.uuid()
            + ", "
            + gpu.smCount()
            + " SMs, "
            + (gpu.memoryBytes() >> 20)
            + " MiB, min partition "
            + gpu.minPartitionSize()
            + ", split "
            + gpu.split().stream().map(g -> String.valueOf(g.sms())).toList()
            + "  \nJava: "
            + System.getProperty("java.version");
    System.out.println(header);
    AgentOptions options =
        new AgentOptions(
            "verify-node",
            work.resolve("run"),
            work.resolve("state"),
            RunMode.IN_AGENT,
            64L << 20,
            8,
            64 << 20);
    try (Agent agent = Agent.start(options, null, backend, null)) {
      InAgentVerification inAgent = new InAgentVerification(agent, backend, kernels, report);
      SmsliceClient victim = inAgent.serveAndConnect("victim", inAgent.victimGroups);
      SmsliceClient aggressor = inAgent.serveAndConnect("aggressor", inAgent.aggressorGroups);
      SmsliceClient neighbour =
          SmsliceClient.connect(
              agent.endpoint("verify", "victim").orElseThrow().socket(),
              "verify/victim",
              agent.issueToken("verify", "victim", "pod", "second"));
      List<String> failed = ProtocolChecks.run(victim, neighbour, kernels);
      report.check(
          "protocol: every tenant operation through the agent",
          failed.isEmpty() ? "all correct" : "failed: " + failed,
          "all correct",
          failed.isEmpty());
      neighbour.close();
      inAgent.confinement(victim, aggressor);
      new ProxyCost(report).compare(backend, gpu.uuid(), inAgent.victimGroups, victim, kernels);
      inAgent.isolation(victim, aggressor);
      inAgent.resize(victim);
      inAgent.fault(aggressor, victim);
      victim.close();
      aggressor.close();
    } catch (Exception | Error e) {
      report.note("verification aborted: " + e);
      e.printStackTrace();
    }
    String table = report.render(header);
    Files.writeString(Path.of(args[3]), table);
    System.out.println(table);
    backend.close();
  }
}
