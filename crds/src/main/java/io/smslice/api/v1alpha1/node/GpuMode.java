package io.smslice.api.v1alpha1.node;

/** How a GPU is shared. Modes never mix on one GPU. */
public enum GpuMode {
  /** Hard SM slices, one green context per claim. */
  Green,
  /** The MIG instances the administrator created. */
  MIG,
  /** Soft percentage shares under the GPU's MPS server, for unmodified CUDA programs. */
  MPS,
  /** Not offered to smslice claims. */
  Off
}
