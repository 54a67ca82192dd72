package io.smslice.agent;

import io.smslice.agent.metrics.ClaimSample;
import io.smslice.agent.server.ClaimRuntime;
import io.smslice.agent.server.ClaimServer;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.gpu.GpuException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;

/** A claim served by a {@link ClaimServer} inside the agent's process. */
final class InAgentClaim implements ServedClaim {
  private final ClaimServer server;
  private volatile BoundClaim binding;

  InAgentClaim(ClaimServer server, BoundClaim binding) {
    this.server = server;
    this.binding = binding;
  }

  ClaimRuntime runtime() {
    return server.runtime();
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
    return server.spec().directory();
  }

  @Override
  public Path socket() {
    return server.socketPath();
  }

  @Override
  public long resize(BoundClaim next) throws GpuException {
    try {
      long nanos = server.runtime().resize(next.groups(), next.memoryBytes()).get();
      binding = next;
      return nanos;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GpuException g) {
        throw g;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public ClaimSample sample(String runMode) {
    ClaimRuntime runtime = server.runtime();
    return new ClaimSample(
        binding.namespace(),
        binding.name(),
        binding.gpuUuid(),
        runMode,
        runtime.sms(),
        runtime.memoryUsed(),
        runtime.memoryQuota(),
        runtime.sessions(),
        runtime.metrics().snapshot(),
        runtime.failure() != null);
  }

  @Override
  public List<AttachedProcess> transparentProcesses() {
    return server.attachedProcesses();
  }

  @Override
  public void close() {
    server.close();
  }
}
