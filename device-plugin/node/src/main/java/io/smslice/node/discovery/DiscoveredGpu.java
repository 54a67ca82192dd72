package io.smslice.node.discovery;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.SplitGroup;
import io.smslice.node.nvml.NvmlMigDevice;
import java.util.List;

/**
 * One GPU as the node side serves it: what the CUDA inventory and NVML say, and the mode it runs
 * in.
 *
 * @param minPartitionSize null when the CUDA inventory does not list the GPU (MIG mode)
 * @param minorNumber N of /dev/nvidiaN, or -1 when NVML did not say
 * @param note why the effective mode differs from the configured one, or null
 */
public record DiscoveredGpu(
    int index,
    String uuid,
    String product,
    GpuMode mode,
    long memoryBytes,
    int smCount,
    Integer minPartitionSize,
    Integer coscheduledAlignment,
    List<SplitGroup> split,
    List<NvmlMigDevice> migDevices,
    int minorNumber,
    String note) {
  public DiscoveredGpu {
    split = List.copyOf(split);
    migDevices = List.copyOf(migDevices);
  }
}
