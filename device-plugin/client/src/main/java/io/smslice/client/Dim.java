package io.smslice.client;

/** Grid or block dimensions of a launch. */
public record Dim(int x, int y, int z) {
  public static Dim of(int x) {
    return new Dim(x, 1, 1);
  }
}
