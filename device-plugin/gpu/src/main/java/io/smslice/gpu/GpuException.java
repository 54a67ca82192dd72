package io.smslice.gpu;

/** A failed GPU operation; {@link #error()} says whether the context survived. */
public class GpuException extends Exception {
  private final GpuError error;

  public GpuException(GpuError error, String message) {
    super(message);
    this.error = error;
  }

  public GpuError error() {
    return error;
  }

  public boolean contextLost() {
    return error.contextLost();
  }
}
