package io.smslice.agent.worker;

import io.smslice.agent.TokenStore;
import io.smslice.agent.server.ClaimRuntime;
import io.smslice.agent.server.ClaimServer;
import io.smslice.agent.server.ConnectionLimits;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A per-claim worker: one process, a client of the GPU's MPS server (the agent sets
 * CUDA_MPS_PIPE_DIRECTORY), serving one claim with the same {@link ClaimServer} the agent runs
 * in-process. The agent drives it with numbered lines on stdin ({@code <n> resize <groups>
 * <quota>}, {@code <n> metrics}, {@code <n> processes}, {@code <n> stop}); it answers each on
 * stdout with a line starting with the same number. Exit code 3: a GPU fault ended it.
 */
public final class WorkerMain {
  public static final int EXIT_GPU_FAULT = 3;

  private WorkerMain() {}

  /**
   * Arguments: backend namespace name gpuUuid groups(csv) quotaBytes claimDir stateDir
   * sharedDataBytes maxSessions maxFrameBytes connectionLimits. Unmodified programs may attach when
   * the worker runs under an MPS server (CUDA_MPS_PIPE_DIRECTORY is set).
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err); // stdout is the agent's channel; logs go to stderr
    if (args.length != 12) {
      out.println("failed usage: WorkerMain " + WorkerProcess.ARGUMENTS);
      System.exit(2);
    }
    String namespace = args[1];
    String name = args[2];
    // A simulated node's GPUs carry its name in their UUIDs: simulate the claim's GPU itself.
    GpuBackend backend =
        args[0].equals("simulated")
            ? SimulatedBackend.h200WithUuid(args[3])
            : Backends.open(args[0]);
    TokenStore tokens = new TokenStore(Path.of(args[7]));
    ClaimServer.Spec spec =
        new ClaimServer.Spec(
            namespace, name, args[3], groups(args[4]), Long.parseLong(args[5]), Path.of(args[6]));
    ClaimServer.Settings settings =
        new ClaimServer.Settings(
            Long.parseLong(args[8]),
            Integer.parseInt(args[9]),
            Integer.parseInt(args[10]),
            ConnectionLimits.parse(args[11]),
            System.getenv("CUDA_MPS_PIPE_DIRECTORY") != null);
    ClaimServer server;
    try {
      server =
          ClaimServer.start(
              spec, backend, settings, t -> tokens.accepts(namespace, name, t), WorkerMain::fault);
    } catch (Exception e) {
      out.println("failed " + e.getMessage());
      System.exit(1);
      return;
    }
    out.println("ready " + server.runtime().sms());
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      // "<request number> <command> <arguments...>"; every answer starts with the number.
      String[] request = line.split(" ", 2);
      String id = request[0];
      String[] words = request.length > 1 ? request[1].split(" ") : new String[] {""};
      switch (words[0]) {
        case "resize" -> {
          try {
            long nanos = server.runtime().resize(groups(words[1]), Long.parseLong(words[2])).get();
            out.println(id + " resized " + nanos);
          } catch (Exception e) {
            out.println(id + " error " + (e.getCause() == null ? e : e.getCause()).getMessage());
          }
        }
        case "metrics" -> {
          ClaimRuntime runtime = server.runtime();
          out.println(
              id
                  + " metrics "
                  + runtime.sms()
                  + " "
                  + runtime.memoryUsed()
                  + " "
                  + runtime.memoryQuota()
                  + " "
                  + runtime.sessions()
                  + " "
                  + runtime.metrics().snapshot().toLine());
        }
        case "processes" -> {
          StringBuilder answer = new StringBuilder(id).append(" processes");
          server.attachedProcesses().forEach(p -> answer.append(' ').append(p.toWord()));
          out.println(answer);
        }
        case "stop" -> {
          server.close();
          backend.close();
          System.exit(0);
        }
        default -> out.println(id + " error unknown command " + words[0]);
      }
    }
    // The agent is gone: nothing will manage this claim any more.
    server.close();
    System.exit(0);
  }

  /**
   * Under MPS a fatal fault is reported to every client of the GPU, and the server refuses new
   * clients until they have all exited: tell the sessions, then exit so the agent can restart the
   * MPS server and the workers.
   */
  private static boolean fault(ClaimRuntime runtime) {
    Thread.ofPlatform()
        .start(
            () -> {
              try {
                runtime.loseDevice("the GPU's MPS server reported a fatal fault").get();
              } catch (Exception e) {
                e.printStackTrace();
              }
              System.exit(EXIT_GPU_FAULT);
            });
    return true;
  }

  static List<Integer> groups(String csv) {
    return Arrays.stream(csv.split(",")).map(Integer::parseInt).toList();
  }
}
