package io.smslice.node.nvml;

/**
 * A process with a CUDA context on a GPU, as NVML lists it.
 *
 * @param pid the process's pid on the node
 * @param usedMemoryBytes GPU memory it uses, or -1 when NVML does not say (as under some MPS
 *     setups)
 */
public record GpuProcess(int pid, long usedMemoryBytes) {}
