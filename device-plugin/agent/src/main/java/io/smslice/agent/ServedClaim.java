package io.smslice.agent;

import io.smslice.agent.metrics.ClaimSample;
import io.smslice.gpu.GpuException;
import java.nio.file.Path;

/** A claim the agent serves, in its own process or in a worker process. */
interface ServedClaim extends AutoCloseable {
  BoundClaim binding();

  Path directory();

  Path socket();

  /** Moves the claim to new groups (and quota), keeping sessions; returns the agent-side nanos. */
  long resize(BoundClaim binding) throws GpuException;

  ClaimSample sample(String runMode);

  @Override
  void close();
}
