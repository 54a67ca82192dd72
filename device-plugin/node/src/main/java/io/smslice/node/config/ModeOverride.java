package io.smslice.node.config;

import io.smslice.api.v1alpha1.node.GpuMode;

/**
 * A GPU whose mode differs from the default.
 *
 * @param match the GPU's CUDA index ("0") or UUID ("GPU-...")
 */
public record ModeOverride(String match, GpuMode mode) {
  public boolean matches(int index, String uuid) {
    return match.equals(Integer.toString(index)) || match.equalsIgnoreCase(uuid);
  }
}
