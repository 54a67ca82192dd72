package io.smslice.operator.placement;

/** How much of one GPU is taken, in SMs (MPS: its percentage shares expressed in SMs). */
public record GpuUsage(
    String node, String uuid, Mode mode, boolean healthy, int capacitySms, int freeSms) {}
