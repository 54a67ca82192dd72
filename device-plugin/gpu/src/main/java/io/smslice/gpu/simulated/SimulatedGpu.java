package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;

/**
 * The state a simulated GPU shares among its green contexts: memory, GPU time and the "sticky"
 * fault that, as on a real GPU, leaves the shared context unusable until it is reset.
 */
final class SimulatedGpu {
  final GpuDevice device;
  final SimulatedMemory memory;
  final SimulatedClock clock;
  private volatile String fault;
  private volatile int generation;

  SimulatedGpu(GpuDevice device) {
    this.device = device;
    this.memory = new SimulatedMemory(device.memoryBytes());
    this.clock = new SimulatedClock(device.smCount());
  }

  int generation() {
    return generation;
  }

  /** Fails when the context is poisoned or was reset since {@code contextGeneration}. */
  void check(int contextGeneration) throws GpuException {
    String current = fault;
    if (current != null) {
      throw new GpuException(GpuError.ILLEGAL_ADDRESS, "context lost: " + current);
    }
    if (contextGeneration != generation) {
      throw new GpuException(
          GpuError.INVALID_VALUE, "green context belongs to a device context that was reset");
    }
  }

  void poison(GpuException cause) {
    fault = cause.getMessage();
  }

  synchronized void reset() {
    memory.clear();
    fault = null;
    generation++;
  }
}
