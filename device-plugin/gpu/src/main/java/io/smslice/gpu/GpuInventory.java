package io.smslice.gpu;

import java.util.List;

/**
 * The GPUs a backend sees. Each green-capable GPU is split once, into its smallest SM groups, for
 * the lifetime of the backend: slices are sets of these groups, because the driver only combines
 * groups of the same split.
 */
public interface GpuInventory {
  /** "cuda" for real GPUs, "simulated" when no GPU is used. */
  String backendName();

  List<GpuDevice> devices();
}
