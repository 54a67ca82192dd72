package io.smslice.agent;

import io.smslice.agent.metrics.ClaimSample;
import io.smslice.agent.metrics.MetricsSnapshot;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.agent.worker.WorkerProcess;
import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.MpsServers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;

/** A claim served by its own worker process under the GPU's MPS server. */
final class WorkerClaim implements ServedClaim {
  private final AgentOptions options;
  private final String backendName;
  private final MpsServers mps;
  private final IntConsumer onUnexpectedExit;
  private volatile BoundClaim binding;
  private volatile WorkerProcess process;
  private volatile long lastRecoveryNanos;

  private WorkerClaim(
      AgentOptions options,
      String backendName,
      MpsServers mps,
      BoundClaim binding,
      IntConsumer onUnexpectedExit) {
    this.options = options;
    this.backendName = backendName;
    this.mps = mps;
    this.binding = binding;
    this.onUnexpectedExit = onUnexpectedExit;
  }

  static WorkerClaim start(
      AgentOptions options,
      String backendName,
      MpsServers mps,
      BoundClaim binding,
      IntConsumer onUnexpectedExit)
      throws IOException {
    WorkerClaim claim = new WorkerClaim(options, backendName, mps, binding, onUnexpectedExit);
    claim.launch();
    return claim;
  }

  /** Starts (or, after a fault, restarts) the worker process with the current binding. */
  void launch() throws IOException {
    BoundClaim b = binding;
    List<String> args =
        List.of(
            backendName,
            b.namespace(),
            b.name(),
            b.gpuUuid(),
            csv(b.groups()),
            Long.toString(b.memoryBytes()),
            directory().toString(),
            options.stateDir().toString(),
            Long.toString(options.sharedDataBytes()),
            Integer.toString(options.maxSessionsPerClaim()),
            Integer.toString(options.maxFrameBytes()),
            options.connections().toArgument());
    Map<String, String> environment =
        mps == null
            ? Map.of()
            : Map.of("CUDA_MPS_PIPE_DIRECTORY", mps.pipeDirectory(b.gpuUuid()).toString());
    process = WorkerProcess.start(args, environment, onUnexpectedExit);
  }

  void kill() {
    WorkerProcess current = process;
    if (current != null) {
      current.kill();
    }
  }

  void recovered(long nanos) {
    lastRecoveryNanos = nanos;
  }

  private static String csv(List<Integer> groups) {
    return groups.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  @Override
  public BoundClaim binding() {
    return binding;
  }

  @Override
  public void rebind(BoundClaim next) {
    binding = next;
  }

  @Override
  public Path directory() {
    return options.claimDirectory(binding.namespace(), binding.name());
  }

  @Override
  public Path socket() {
    return directory().resolve(io.smslice.agent.server.ClaimServer.SOCKET_NAME);
  }

  @Override
  public long resize(BoundClaim next) throws GpuException {
    String answer;
    try {
      answer = process.request("resize " + csv(next.groups()) + " " + next.memoryBytes());
    } catch (IOException e) {
      throw new GpuException(GpuError.DRIVER, "worker of " + next.key() + ": " + e.getMessage());
    }
    if (!answer.startsWith("resized ")) {
      throw new GpuException(GpuError.INVALID_VALUE, answer.replaceFirst("^error ", ""));
    }
    binding = next;
    return Long.parseLong(answer.substring("resized ".length()));
  }

  @Override
  public ClaimSample sample(String runMode) {
    BoundClaim b = binding;
    try {
      String[] words = process.request("metrics").split(" ", 6);
      MetricsSnapshot worker = MetricsSnapshot.parse(words[5]);
      MetricsSnapshot merged =
          new MetricsSnapshot(
              worker.launches(),
              worker.launchNanos(),
              worker.buckets(),
              worker.syncNanos(),
              worker.faults(),
              worker.resizes(),
              worker.lastResizeNanos(),
              Math.max(worker.lastRecoveryNanos(), lastRecoveryNanos));
      return new ClaimSample(
          b.namespace(),
          b.name(),
          b.gpuUuid(),
          runMode,
          Integer.parseInt(words[1]),
          Long.parseLong(words[2]),
          Long.parseLong(words[3]),
          Integer.parseInt(words[4]),
          merged);
    } catch (IOException | RuntimeException e) {
      return null; // a worker being restarted has no metrics to give
    }
  }

  /** Asks the worker, which holds the claim's socket; empty while it is being restarted. */
  @Override
  public List<AttachedProcess> transparentProcesses() {
    try {
      String answer = process.request("processes");
      if (!answer.startsWith("processes")) {
        return List.of();
      }
      return Arrays.stream(answer.split(" ")).skip(1).map(AttachedProcess::fromWord).toList();
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }

  @Override
  public void close() {
    WorkerProcess current = process;
    if (current != null) {
      current.close();
    }
  }
}
