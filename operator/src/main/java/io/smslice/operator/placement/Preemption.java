package io.smslice.operator.placement;

import io.smslice.operator.placement.GpuState.Allocation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Room for a LatencyCritical claim made by displacing BestEffort claims of one GPU. Per GPU: the
 * smallest single BestEffort slice that makes room; else the largest ones are taken until the claim
 * fits, and any that turn out unnecessary are given back. The GPU needing the fewest displaced
 * claims (then fewest displaced SMs) wins.
 */
final class Preemption {
  private final Fitting fitting;
  private final List<GpuState> gpus;

  Preemption(Fitting fitting, List<GpuState> gpus) {
    this.fitting = fitting;
    this.gpus = gpus;
  }

  Decision find(Request r, Mode mode) {
    Decision.Placed best = null;
    long[] bestScore = null;
    for (GpuState g : gpus) {
      List<Allocation> bestEffort =
          g.allocations().stream()
              .filter(a -> a.priority() == Priority.BEST_EFFORT)
              .sorted(
                  Comparator.comparingInt((Allocation a) -> -a.placement().sms())
                      .thenComparing(Allocation::claim))
              .toList();
      Set<String> victims = new LinkedHashSet<>();
      Placement p = null;
      // One victim is enough most of the time: the smallest that makes room.
      for (Allocation a : bestEffort.reversed()) {
        p = fitting.fit(g, r, Set.of(a.claim()), Set.of());
        if (p != null) {
          victims.add(a.claim());
          break;
        }
      }
      for (Allocation a : p != null ? List.<Allocation>of() : bestEffort) {
        victims.add(a.claim());
        p = fitting.fit(g, r, victims, Set.of());
        if (p != null) {
          break;
        }
      }
      if (p == null) {
        continue;
      }
      for (String v : new ArrayList<>(victims)) {
        victims.remove(v);
        Placement without = fitting.fit(g, r, victims, Set.of());
        if (without != null) {
          p = without;
        } else {
          victims.add(v);
        }
      }
      int displacedSms =
          g.allocations().stream()
              .filter(a -> victims.contains(a.claim()))
              .mapToInt(a -> a.placement().sms())
              .sum();
      long[] score = {victims.size(), displacedSms};
      if (bestScore == null || Arrays.compare(score, bestScore) < 0) {
        best = new Decision.Placed(p, List.copyOf(victims));
        bestScore = score;
      }
    }
    return best;
  }
}
