package io.smslice.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The granularity rule of docs/placement.md, checked against every subset of small random splits: a
 * claim gets the smallest sum of free groups at or above what it asks, and among the sets with that
 * sum one with the fewest groups.
 */
class GroupCoverTest {
  @Provide
  Arbitrary<int[]> splits() {
    return Arbitraries.integers()
        .between(1, 24)
        .list()
        .ofMinSize(1)
        .ofMaxSize(12)
        .map(l -> l.stream().mapToInt(Integer::intValue).sorted().toArray());
  }

  @Property(tries = 500)
  void theCoverHasTheSmallestSumAtOrAboveTheTargetAndTheFewestGroupsOfThatSum(
      @ForAll("splits") int[] sizes, @ForAll @IntRange(min = 1, max = 300) int target) {
    int bestSum = Integer.MAX_VALUE;
    int bestCount = Integer.MAX_VALUE;
    for (int mask = 1; mask < 1 << sizes.length; mask++) {
      int sum = 0;
      for (int i = 0; i < sizes.length; i++) {
        sum += (mask >> i & 1) * sizes[i];
      }
      int count = Integer.bitCount(mask);
      if (sum >= target && (sum < bestSum || (sum == bestSum && count < bestCount))) {
        bestSum = sum;
        bestCount = count;
      }
    }
    int[] cover = new GroupCover().cover(new Shape(sizes), target);
    if (bestSum == Integer.MAX_VALUE) {
      assertThat(cover).isNull();
      return;
    }
    assertThat(cover).isNotNull();
    assertThat(Arrays.stream(cover).sum())
        .as("sum of %s", Arrays.toString(cover))
        .isEqualTo(bestSum);
    assertThat(cover).as("groups of %s", Arrays.toString(sizes)).hasSize(bestCount);
    List<Integer> left = new ArrayList<>(Arrays.stream(sizes).boxed().toList());
    for (int s : cover) {
      assertThat(left.remove((Integer) s)).as("%d is one of the free groups", s).isTrue();
    }
  }
}
