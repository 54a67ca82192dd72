package io.smslice.node.nvml;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What the node side reads from NVML: the GPUs, their MIG devices, their health, their processes
 * and their clocks and power. The real implementation is {@link NativeNvml} (libnvidia-ml.so.1
 * through java.lang.foreign); {@link SimulatedNvml} stands in where there is no GPU.
 */
public interface Nvml extends AutoCloseable {
  String driverVersion();

  List<NvmlGpu> gpus();

  /**
   * A reason the GPU cannot be trusted right now (lost, retired pages or row remapping pending, row
   * remapping failed), or empty when it looks sound.
   */
  Optional<String> healthProblem(String gpuUuid);

  /**
   * The processes with a CUDA context on the GPU: plain clients and MPS clients (the MPS server
   * itself included, as NVML lists it). Empty when NVML cannot tell.
   */
  List<GpuProcess> computeProcesses(String gpuUuid);

  /** The GPU's SM clock, power draw and clock-event reasons now; empty when NVML cannot open it. */
  Optional<GpuActivity> activity(String gpuUuid);

  /** Waits up to {@code timeout} for the next critical Xid error of any GPU. */
  Optional<XidEvent> awaitXid(Duration timeout) throws InterruptedException;

  @Override
  void close();
}
