package io.smslice.gpu;

/** Why a GPU operation failed, in the driver's terms where it has one. */
public enum GpuError {
  /** A bad argument: unknown group, wrong argument count, offset out of range. */
  INVALID_VALUE(false),
  /** Device memory exhausted. */
  OUT_OF_MEMORY(false),
  /** A module image the driver could not load, or a missing function. */
  INVALID_IMAGE(false),
  /** The operation is not available on this backend or driver. */
  NOT_SUPPORTED(false),
  /** A kernel touched memory it does not own; the GPU's context is lost. */
  ILLEGAL_ADDRESS(true),
  /** A kernel failed in another way that leaves the context unusable. */
  LAUNCH_FAILED(true),
  /** Any other driver error. */
  DRIVER(false);

  private final boolean contextLost;

  GpuError(boolean contextLost) {
    this.contextLost = contextLost;
  }

  /** True when the GPU's context must be rebuilt before anything runs again. */
  public boolean contextLost() {
    return contextLost;
  }
}
