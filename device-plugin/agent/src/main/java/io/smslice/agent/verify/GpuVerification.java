package io.smslice.agent.verify;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.MpsServers;
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
    if (args.length != 5 && args.length != 7) {
      System.err.println(
          "usage: GpuVerification <cuda|simulated> <in-agent|worker> <kernels.ptx> <work dir>"
              + " <result> [<mps pipe dir> <mps log dir>]");
      System.exit(2);
    }
    RunMode mode = RunMode.fromConfig(args[1]);
    byte[] kernels = Files.readAllBytes(Path.of(args[2]));
    Path work = Path.of(args[3]);
    Report report = new Report();
    GpuBackend backend = Backends.open(args[0]);
    GpuDevice gpu = backend.devices().getFirst();
    String header =
        "## Run mode "
            + mode.configName()
            + "\n\n"
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
    MpsServers mps = args.length == 7 ? new CommandMps(Path.of(args[5]), Path.of(args[6])) : null;
    AgentOptions options =
        new AgentOptions(
            "verify-node",
            work.resolve("run"),
            work.resolve("state"),
            mode,
            40L << 20,
            8,
            64 << 20);
    try (Agent agent = Agent.start(options, null, backend, mps)) {
      ClaimChecks checks = new ClaimChecks(agent, backend, kernels, report, mode.configName());
      SmsliceClient victim = checks.serveAndConnect("victim", checks.victimGroups);
      SmsliceClient aggressor = checks.serveAndConnect("aggressor", checks.aggressorGroups);
      SmsliceClient neighbour =
          SmsliceClient.connect(
              agent.endpoint("verify", "victim").orElseThrow().socket(),
              "verify/victim",
              agent.issueToken("verify", "victim", "pod", "second"));
      List<String> failed = ProtocolChecks.run(victim, neighbour, kernels);
      report.check(
          "protocol " + mode.configName() + ": every tenant operation through the agent",
          failed.isEmpty() ? "all correct" : "failed: " + failed,
          "all correct",
          failed.isEmpty());
      neighbour.close();
      checks.confinement(victim, aggressor);
      if (mode == RunMode.IN_AGENT) {
        new ProxyCost(report).compare(backend, gpu.uuid(), checks.victimGroups, victim, kernels);
      }
      checks.isolation(victim, aggressor);
      checks.resize(victim);
      if (mode == RunMode.IN_AGENT) {
        checks.crossClaimReadInAgent(victim, aggressor);
        checks.fault(aggressor, victim, 0x8, "illegal-address kernel in one claim");
      } else {
        long secret = victim.deviceAddress(checks.victimSecret(victim));
        checks.fault(
            aggressor, victim, secret, "one claim's kernel reads the other claim's buffer");
      }
      victim.close();
      aggressor.close();
    } catch (Exception | Error e) {
      report.note("verification aborted: " + e);
      e.printStackTrace();
    }
    String table = report.render(header);
    Files.writeString(Path.of(args[4]), table);
    System.out.println(table);
    backend.close();
  }
}
