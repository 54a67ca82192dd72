package io.smslice.operator.placement;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Exact choice of SM groups covering a request: the subset of a shape's sizes whose sum is the
 * smallest one at or above the target, with the fewest groups among those. A GPU splits into a few
 * dozen groups at most, so a 0/1 knapsack over sums is exact and cheap; results are memoised per
 * (shape, target) because thousands of GPUs share a handful of shapes.
 */
final class GroupCover {
  private static final int[] NONE = new int[0];

  private record Key(Shape shape, int target) {}

  private final Map<Key, int[]> memo = new HashMap<>();

  /** Sizes to take (ascending), or null when the shape's total is below the target. */
  int[] cover(Shape shape, int target) {
    int[] result = memo.computeIfAbsent(new Key(shape, target), k -> solve(k.shape.sizes, target));
    return result == NONE ? null : result;
  }

  private static int[] solve(int[] sizes, int target) {
    int total = Arrays.stream(sizes).sum();
    if (target <= 0 || total < target) {
      return NONE;
    }
    int n = sizes.length;
    int inf = Integer.MAX_VALUE;
    // fewest[i][s]: fewest groups among the first i summing exactly to s.
    int[][] fewest = new int[n + 1][total + 1];
    Arrays.fill(fewest[0], inf);
    fewest[0][0] = 0;
    for (int i = 0; i < n; i++) {
      int[] before = fewest[i];
      int[] after = fewest[i + 1];
      System.arraycopy(before, 0, after, 0, total + 1);
      for (int s = sizes[i]; s <= total; s++) {
        int prev = before[s - sizes[i]];
        if (prev != inf && prev + 1 < after[s]) {
          after[s] = prev + 1;
        }
      }
    }
    int sum = target;
    while (fewest[n][sum] == inf) {
      sum++;
    }
    int[] chosen = new int[fewest[n][sum]];
    int k = 0;
    for (int i = n - 1; i >= 0; i--) {
      if (fewest[i + 1][sum] != fewest[i][sum]) {
        chosen[k++] = sizes[i];
        sum -= sizes[i];
      }
    }
    Arrays.sort(chosen);
    return chosen;
  }
}
