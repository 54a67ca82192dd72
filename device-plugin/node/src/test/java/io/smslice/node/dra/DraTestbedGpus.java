package io.smslice.node.dra;

import io.smslice.gpu.GpuDevice;

/** DRA views of simulated GPUs for unit tests. */
public final class DraTestbedGpus {
  private DraTestbedGpus() {}

  public static DraGpu draGpu(GpuDevice d) {
    return DraGpu.of(DraTestbed.green(d)).orElseThrow();
  }
}
