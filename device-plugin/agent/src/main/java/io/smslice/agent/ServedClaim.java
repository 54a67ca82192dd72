package io.smslice.agent;

import io.smslice.agent.metrics.ClaimSample;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.gpu.GpuException;
import java.nio.file.Path;
import java.util.List;

/** A claim the agent serves, in its own process or in a worker process. */
interface ServedClaim extends AutoCloseable {
  BoundClaim binding();

  Path directory();

  Path socket();

  /** Moves the claim to new groups (and quota), keeping sessions; returns the agent-side nanos. */
  long resize(BoundClaim binding) throws GpuException;

  /** Takes a new binding that differs only in what needs no GPU work (its priority). */
  void rebind(BoundClaim binding);

  ClaimSample sample(String runMode);

  /** The unmodified programs' processes attached to the claim's socket now. */
  List<AttachedProcess> transparentProcesses();

  @Override
  void close();
}
