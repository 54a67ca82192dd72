package io.smslice.examples.workload;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The voter's bookkeeping, apart from its HTTP: ballots collected per frame, and frames decided
 * once they are closed. A frame has an answer when two models agree within the deadline; otherwise
 * it is a miss, a disagreement when two answers in time differ, else lateness. Frames before all
 * models first answered are start-up and not counted; a ballot for a closed frame is dropped (its
 * model was already counted as missing).
 */
final class VoteTally {
  private final List<String> models;
  private final long deadlineNanos;
  private final TreeMap<Long, Map<String, Ballot>> open = new TreeMap<>();
  private final Map<String, Long> modelMisses = new HashMap<>();
  private long closedBefore = Long.MIN_VALUE;
  private boolean allSeen;
  private long decided;
  private long disagreements;
  private long late;

  VoteTally(List<String> models, long deadlineNanos) {
    this.models = List.copyOf(models);
    this.deadlineNanos = deadlineNanos;
  }

  synchronized void add(Ballot ballot) {
    if (ballot.frame() >= closedBefore) {
      open.computeIfAbsent(ballot.frame(), f -> new HashMap<>()).put(ballot.model(), ballot);
    }
  }

  /** Decides every open frame before {@code frame}, recording each outcome in {@code stats}. */
  synchronized void closeBefore(long frame, LatencyStats stats) {
    closedBefore = Math.max(closedBefore, frame);
    var frames = open.headMap(frame);
    for (Map<String, Ballot> ballots : frames.values()) {
      allSeen |= ballots.keySet().containsAll(models);
      if (allSeen) {
        decide(ballots, stats);
      }
    }
    frames.clear();
  }

  private void decide(Map<String, Ballot> ballots, LatencyStats stats) {
    for (String model : models) {
      Ballot b = ballots.get(model);
      if (b == null || b.latencyNanos() > deadlineNanos) {
        modelMisses.merge(model, 1L, Long::sum);
      }
    }
    Map<Long, List<Ballot>> byAnswer =
        ballots.values().stream()
            .filter(b -> b.latencyNanos() <= deadlineNanos)
            .collect(Collectors.groupingBy(Ballot::checksum));
    List<Ballot> majority =
        byAnswer.values().stream().filter(l -> l.size() >= 2).findFirst().orElse(null);
    decided++;
    if (majority == null) {
      long onTime = byAnswer.values().stream().mapToLong(List::size).sum();
      if (onTime >= 2) {
        disagreements++;
      } else {
        late++;
      }
      stats.recordMiss();
    } else {
      // The frame had its answer when the second agreeing model answered.
      stats.record(
          majority.stream()
              .mapToLong(Ballot::latencyNanos)
              .sorted()
              .skip(1)
              .findFirst()
              .orElseThrow());
    }
  }

  synchronized long decided() {
    return decided;
  }

  synchronized long disagreements() {
    return disagreements;
  }

  synchronized long late() {
    return late;
  }

  synchronized long missesOf(String model) {
    return modelMisses.getOrDefault(model, 0L);
  }

  synchronized String summary() {
    return "frames "
        + decided
        + ", no majority in time "
        + (disagreements + late)
        + " (disagreed "
        + disagreements
        + "), late or missing per model "
        + models.stream().map(m -> m + "=" + missesOf(m)).collect(Collectors.joining(" "));
  }
}
