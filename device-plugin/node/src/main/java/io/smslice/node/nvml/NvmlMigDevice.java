package io.smslice.node.nvml;

/**
 * One MIG device (a compute instance inside a GPU instance).
 *
 * @param profile profile name such as 1g.18gb
 * @param gpuInstanceId and computeInstanceId pick the device's capability nodes under
 *     /proc/driver/nvidia-caps/mig-minors
 */
public record NvmlMigDevice(
    String uuid,
    String profile,
    int sms,
    long memoryBytes,
    int gpuInstanceId,
    int computeInstanceId) {}
