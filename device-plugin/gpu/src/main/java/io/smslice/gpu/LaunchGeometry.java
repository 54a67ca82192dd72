package io.smslice.gpu;

/** Grid and block dimensions and dynamic shared memory of a kernel launch. */
public record LaunchGeometry(
    int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, int sharedBytes) {
  public LaunchGeometry {
    if (gridX < 1 || gridY < 1 || gridZ < 1 || blockX < 1 || blockY < 1 || blockZ < 1) {
      throw new IllegalArgumentException("grid and block dimensions must be at least 1");
    }
    if (sharedBytes < 0) {
      throw new IllegalArgumentException("shared memory bytes must not be negative");
    }
  }

  public static LaunchGeometry of(int blocks, int threads) {
    return new LaunchGeometry(blocks, 1, 1, threads, 1, 1, 0);
  }

  public long blocks() {
    return (long) gridX * gridY * gridZ;
  }

  public long threadsPerBlock() {
    return (long) blockX * blockY * blockZ;
  }
}
