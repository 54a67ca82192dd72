package io.smslice.node.nvml;

/** An Xid error NVML reported for a GPU. */
public record XidEvent(String gpuUuid, long xid) {}
