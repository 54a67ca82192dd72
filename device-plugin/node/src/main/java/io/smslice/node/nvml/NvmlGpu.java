package io.smslice.node.nvml;

import java.util.List;

/**
 * One GPU as NVML describes it.
 *
 * @param minorNumber N of the GPU's device node /dev/nvidiaN
 * @param migEnabled whether MIG mode is currently enabled (false where MIG is not supported)
 * @param migDevices the MIG devices present, empty unless MIG is enabled
 */
public record NvmlGpu(
    int index,
    String uuid,
    String name,
    long memoryBytes,
    int minorNumber,
    boolean migEnabled,
    List<NvmlMigDevice> migDevices) {
  public NvmlGpu {
    migDevices = List.copyOf(migDevices);
  }
}
