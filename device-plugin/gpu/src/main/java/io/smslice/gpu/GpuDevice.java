package io.smslice.gpu;

import java.util.List;

/**
 * One GPU as the CUDA driver describes it.
 *
 * @param split the groups of the GPU's one SM split, remainder last; ids are list positions
 */
public record GpuDevice(
    int index,
    String uuid,
    String product,
    long memoryBytes,
    int smCount,
    int minPartitionSize,
    int coscheduledAlignment,
    List<SplitGroup> split) {
  public GpuDevice {
    split = List.copyOf(split);
  }
}
