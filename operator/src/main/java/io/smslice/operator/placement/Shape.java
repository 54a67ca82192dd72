package io.smslice.operator.placement;

import java.util.Arrays;

/**
 * The sizes of a GPU's free SM groups, sorted ascending. GPUs with the same shape offer the same
 * covers, so the engine searches shapes (a few dozen) instead of GPUs (thousands).
 */
final class Shape {
  final int[] sizes;
  final int total;
  private final int hash;

  Shape(int[] sortedSizes) {
    this.sizes = sortedSizes;
    int sum = 0;
    for (int s : sortedSizes) {
      sum += s;
    }
    this.total = sum;
    this.hash = Arrays.hashCode(sortedSizes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Shape s && Arrays.equals(sizes, s.sizes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return Arrays.toString(sizes);
  }
}
