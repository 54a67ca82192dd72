package io.smslice.node.config;

import java.time.Duration;

/**
 * When the node lets a GPU's interference guard be on, beyond latency-critical and best-effort
 * claims sharing the GPU (docs/interference-guard.md).
 *
 * @param onlyUnderPressure on only while NVML shows the GPU under power or bandwidth pressure
 * @param memoryBusyPercent NVML's memory utilisation (percent of its sample period the memory was
 *     read or written) from which bandwidth counts as pressure
 * @param hold how long the guard stays allowed after the last sample that showed pressure, so that
 *     it does not flap with every frame
 */
public record GuardGating(boolean onlyUnderPressure, int memoryBusyPercent, Duration hold) {
  public static final GuardGating ALWAYS = new GuardGating(false, 50, Duration.ofSeconds(10));
}
