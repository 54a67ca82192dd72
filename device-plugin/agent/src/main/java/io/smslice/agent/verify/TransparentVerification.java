package io.smslice.agent.verify;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.RunMode;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The real agent for the interposer's GPU verification without the node side (the node's
 * FaultRecoveryCheck reuses its claims, environment files and log): serves the named claims in
 * worker mode under the given MPS daemon, writes each claim's tenant environment to {@code
 * <work>/env/<name>.env}, logs every process that attaches, and runs until {@code <work>/stop}
 * appears. Usage: {@code TransparentVerification <work dir> <mps pipe dir> <mps log dir>
 * <name>=<groups>...}, groups as "0,1", "2-14" or "all".
 */
public final class TransparentVerification {
  private TransparentVerification() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println(
          "usage: TransparentVerification <work dir> <mps pipe dir> <mps log dir>"
              + " <name>=<groups>...");
      System.exit(2);
    }
    Path work = Path.of(args[0]);
    // "simulated" lets the tool's wiring be tried on a machine without a GPU.
    GpuBackend backend = Backends.open(System.getProperty("smslice.backend", "cuda"));
    GpuDevice gpu = backend.devices().getFirst();
    AgentOptions options = options(work);
    Map<String, List<Integer>> claims = claims(List.of(args).subList(3, args.length), gpu);
    try (Agent agent =
        Agent.start(options, null, backend, new CommandMps(Path.of(args[1]), Path.of(args[2])))) {
      serve(agent, gpu, claims, work);
      Files.writeString(work.resolve("ready"), gpu.uuid() + "\n");
      Set<String> seen = new LinkedHashSet<>();
      while (!Files.exists(work.resolve("stop"))) {
        logAttached(agent, claims.keySet(), work, seen);
        Thread.sleep(100);
      }
    } finally {
      backend.close();
    }
  }

  /** The verification agent's options: worker mode, its run and state folders under work. */
  public static AgentOptions options(Path work) {
    return new AgentOptions(
        "verify-node",
        work.resolve("run"),
        work.resolve("state"),
        RunMode.WORKER,
        4L << 20,
        8,
        64 << 20);
  }

  /** The claims named on the command line, {@code <name>=<groups>}, in order. */
  public static Map<String, List<Integer>> claims(List<String> specs, GpuDevice gpu) {
    Map<String, List<Integer>> claims = new LinkedHashMap<>();
    for (String spec : specs) {
      String[] parts = spec.split("=", 2);
      if (parts.length != 2) {
        throw new IllegalArgumentException("a claim is <name>=<groups>, not " + spec);
      }
      claims.put(parts[0], groups(parts[1], gpu.split().size()));
    }
    return claims;
  }

  /**
   * Serves each claim as {@code verify/<name>} on the GPU and writes its tenant environment to
   * {@code <work>/env/<name>.env}.
   */
  public static void serve(Agent agent, GpuDevice gpu, Map<String, List<Integer>> claims, Path work)
      throws Exception {
    Files.createDirectories(work.resolve("env"));
    for (var claim : claims.entrySet()) {
      String name = claim.getKey();
      agent.serve(new BoundClaim("verify", name, gpu.uuid(), claim.getValue(), 16L << 30));
      String token = agent.issueToken("verify", name, "pod-" + name, "main");
      int sms = claim.getValue().stream().mapToInt(g -> gpu.split().get(g).sms()).sum();
      Files.writeString(
          work.resolve("env").resolve(name + ".env"),
          "export SMSLICE_SOCKET="
              + agent.endpoint("verify", name).orElseThrow().socket()
              + "\nexport SMSLICE_CLAIM=verify/"
              + name
              + "\nexport SMSLICE_TOKEN="
              + token
              + "\nexport SMSLICE_SMS="
              + sms
              + "\n");
      System.out.println(
          "claim verify/" + name + ": groups " + claim.getValue() + ", " + sms + " SMs");
    }
  }

  /** Appends each newly attached process to attached.log, once per (claim, pid) in seen. */
  public static void logAttached(Agent agent, Set<String> names, Path work, Set<String> seen)
      throws Exception {
    List<String> lines = new ArrayList<>();
    for (String name : names) {
      for (AttachedProcess p : agent.transparentProcesses("verify/" + name)) {
        if (seen.add(name + "/" + p.pid())) {
          lines.add(
              "verify/"
                  + name
                  + " pid "
                  + p.pid()
                  + " host pid "
                  + p.hostPid()
                  + " "
                  + p.command());
        }
      }
    }
    if (!lines.isEmpty()) {
      Files.write(
          work.resolve("attached.log"),
          lines,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }

  private static List<Integer> groups(String text, int splitSize) {
    if (text.equals("all")) {
      return IntStream.range(0, splitSize).boxed().toList();
    }
    List<Integer> groups = new ArrayList<>();
    for (String part : text.split(",")) {
      String[] range = part.split("-");
      int from = Integer.parseInt(range[0]);
      int to = range.length == 2 ? Integer.parseInt(range[1]) : from;
      IntStream.rangeClosed(from, to).forEach(groups::add);
    }
    return groups;
  }
}
