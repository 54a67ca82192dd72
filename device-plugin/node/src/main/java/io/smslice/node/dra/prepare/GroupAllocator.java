package io.smslice.node.dra.prepare;

import io.smslice.agent.ClaimStatus;
import io.smslice.node.dra.DraGpu;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Picks the SM groups of a claim on its GPU. The scheduler only counted SMs, so the groups are
 * chosen here, disjoint from every claim the agent serves on that GPU (the truth of what runs) and
 * from every claim being prepared or prepared by this driver (held from the pick until unprepare).
 * The lock is held for the pick only, never while the agent starts a claim, so concurrent prepares
 * of different claims do not wait for each other.
 */
public final class GroupAllocator {
  private record Held(String claimKey, String gpuUuid, List<Integer> groups) {}

  private final Supplier<List<ClaimStatus>> served;
  private final Map<String, Held> held = new HashMap<>();

  /**
   * @param served what the agent serves now
   */
  public GroupAllocator(Supplier<List<ClaimStatus>> served) {
    this.served = served;
  }

  /**
   * Holds {@code count} free groups of the GPU for the claim (uid), lowest ids first; empty when
   * the GPU has fewer free groups.
   */
  public synchronized Optional<List<Integer>> hold(
      String uid, String claimKey, DraGpu gpu, int count) {
    Set<Integer> taken = new TreeSet<>();
    for (ClaimStatus s : served.get()) {
      if (s.gpuUuid().equals(gpu.uuid()) && !s.key().equals(claimKey)) {
        taken.addAll(s.groups());
      }
    }
    held.forEach(
        (u, h) -> {
          if (!u.equals(uid) && h.gpuUuid().equals(gpu.uuid())) {
            taken.addAll(h.groups());
          }
        });
    Optional<List<Integer>> picked = pick(gpu.groupIds(), taken, count);
    picked.ifPresent(g -> held.put(uid, new Held(claimKey, gpu.uuid(), g)));
    return picked;
  }

  /** Holds the groups a checkpointed claim had (at start, before serving it again). */
  public synchronized void restore(PreparedClaim claim) {
    held.put(claim.uid(), new Held(claim.key(), claim.gpuUuid(), claim.groups()));
  }

  public synchronized void free(String uid) {
    held.remove(uid);
  }

  /** Groups free on the GPU now (for the free-SMs metric and messages). */
  public synchronized int freeGroups(DraGpu gpu) {
    Set<Integer> taken = new TreeSet<>();
    served.get().stream()
        .filter(s -> s.gpuUuid().equals(gpu.uuid()))
        .forEach(s -> taken.addAll(s.groups()));
    held.values().stream()
        .filter(h -> h.gpuUuid().equals(gpu.uuid()))
        .forEach(h -> taken.addAll(h.groups()));
    return (int) gpu.groupIds().stream().filter(id -> !taken.contains(id)).count();
  }

  /** The {@code count} lowest ids not taken, or empty. */
  static Optional<List<Integer>> pick(List<Integer> ids, Set<Integer> taken, int count) {
    List<Integer> out = new ArrayList<>();
    for (int id : ids) {
      if (out.size() == count) {
        break;
      }
      if (!taken.contains(id)) {
        out.add(id);
      }
    }
    return count > 0 && out.size() == count ? Optional.of(out) : Optional.empty();
  }
}
