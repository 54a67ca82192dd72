package io.smslice.operator.placement;

import io.smslice.operator.placement.GpuState.Allocation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Places claims on GPUs. Pure Java and single-threaded: the caller serialises calls. {@link #place}
 * and {@link #resize} only decide; {@link #commit} and {@link #release} change the state. The rules
 * are in docs/placement.md.
 */
public final class PlacementEngine {
  private static final Comparator<GpuState> GPU_ORDER =
      Comparator.comparing((GpuState g) -> g.gpu.node())
          .thenComparingInt(g -> g.gpu.index())
          .thenComparing(g -> g.gpu.uuid());

  private final List<NodeInventory> nodes;
  private final Map<String, GpuState> gpus = new LinkedHashMap<>();
  private final Map<String, GpuState> gpuOfClaim = new HashMap<>();
  private final GreenIndex greenIndex = new GreenIndex(GPU_ORDER);
  private final GroupCover cover = new GroupCover();
  private final Fitting fitting = new Fitting(cover);
  private final Map<String, String> lost = new TreeMap<>();

  public PlacementEngine(Collection<NodeInventory> nodes) {
    this.nodes = List.copyOf(nodes);
    List<GpuState> states = new ArrayList<>();
    for (NodeInventory node : nodes) {
      for (Gpu gpu : node.gpus()) {
        states.add(new GpuState(gpu, node.labels(), node.closed()));
      }
    }
    states.sort(GPU_ORDER);
    for (GpuState s : states) {
      if (gpus.putIfAbsent(s.gpu.uuid(), s) != null) {
        throw new IllegalArgumentException("GPU " + s.gpu.uuid() + " appears on two nodes");
      }
      if (s.gpu.mode() == Mode.GREEN && s.gpu.healthy()) {
        greenIndex.update(s);
      }
    }
  }

  /**
   * The same allocations on a new inventory. Allocations whose GPU is gone, unhealthy or changed
   * are dropped and listed in {@link #lost()}, so their claims get placed again.
   */
  public PlacementEngine withInventory(Collection<NodeInventory> newNodes) {
    PlacementEngine next = new PlacementEngine(newNodes);
    List<Allocation> all = new ArrayList<>();
    gpus.values().forEach(g -> all.addAll(g.allocations()));
    all.sort(Comparator.comparing(Allocation::priority).thenComparing(Allocation::claim));
    for (Allocation a : all) {
      next.commit(a.claim(), a.priority(), a.placement())
          .ifPresent(why -> next.lost.put(a.claim(), why));
    }
    return next;
  }

  public List<NodeInventory> nodes() {
    return nodes;
  }

  /** Claims whose allocation did not survive the last inventory change, with why. */
  public Map<String, String> lost() {
    return lost;
  }

  /** Records a slice; empty when recorded, else why it conflicts (then nothing changes). */
  public Optional<String> commit(String claim, Priority priority, Placement placement) {
    if (gpuOfClaim.containsKey(claim)) {
      return Optional.of(claim + " already holds a slice");
    }
    GpuState gpu = gpus.get(placement.gpuUuid());
    if (gpu == null || !gpu.gpu.node().equals(placement.node())) {
      return Optional.of(
          "GPU " + placement.gpuUuid() + " is not on a live node " + placement.node());
    }
    if (!gpu.gpu.healthy()) {
      return Optional.of("GPU " + placement.gpuUuid() + " is unhealthy");
    }
    String conflict = gpu.add(new Allocation(claim, priority, placement));
    if (conflict != null) {
      return Optional.of(conflict);
    }
    gpuOfClaim.put(claim, gpu);
    lost.remove(claim);
    reindex(gpu);
    return Optional.empty();
  }

  public void release(String claim) {
    GpuState gpu = gpuOfClaim.remove(claim);
    if (gpu != null) {
      gpu.remove(claim);
      reindex(gpu);
    }
    lost.remove(claim);
  }

  /** Every claim that holds a slice. */
  public Set<String> claims() {
    return Set.copyOf(gpuOfClaim.keySet());
  }

  public Optional<Placement> placementOf(String claim) {
    GpuState gpu = gpuOfClaim.get(claim);
    return gpu == null
        ? Optional.empty()
        : gpu.allocations().stream()
            .filter(a -> a.claim().equals(claim))
            .map(Allocation::placement)
            .findFirst();
  }

  /** The GPU a placement names, if the inventory has it. */
  public Optional<Gpu> gpu(String uuid) {
    return Optional.ofNullable(gpus.get(uuid)).map(s -> s.gpu);
  }

  /** The MPS share {@code sms} SMs are of the named GPU, or 0 when the GPU is unknown. */
  public int mpsPercent(String gpuUuid, int sms) {
    GpuState g = gpus.get(gpuUuid);
    return g == null ? 0 : Fitting.percent(g.gpu, sms);
  }

  /** Decides where a new claim goes (does not record it). */
  public Decision place(Request r) {
    String invalid = Fitting.invalid(r);
    if (invalid != null) {
      return new Decision.Unplaced("InvalidClaim", invalid, true);
    }
    List<Mode> modes = Fitting.modesFor(r);
    for (Mode mode : modes) {
      Placement p = mode == Mode.GREEN ? bestGreen(r) : bestScanned(r, mode);
      if (p != null) {
        return new Decision.Placed(p, List.of());
      }
    }
    if (r.priority() == Priority.LATENCY_CRITICAL) {
      for (Mode mode : modes) {
        Decision d = new Preemption(fitting, candidates(r, mode, true)).find(r, mode);
        if (d != null) {
          return d;
        }
      }
    }
    return Fitting.unplaced(r, modes, allMatching(r));
  }

  /**
   * Decides a new size for a placed claim on the GPU it already has (does not record it); the
   * claim's own slice counts as free, and its groups are kept where possible.
   */
  public Decision resize(Request r) {
    GpuState gpu = gpuOfClaim.get(r.claim());
    if (gpu == null) {
      throw new IllegalStateException(r.claim() + " holds no slice to resize");
    }
    String invalid = Fitting.invalid(r);
    if (invalid != null) {
      return new Decision.Unplaced("InvalidClaim", invalid, true);
    }
    Placement current = placementOf(r.claim()).orElseThrow();
    Set<String> self = Set.of(r.claim());
    if (current.mode() == Mode.MIG) {
      MigSlot slot = Fitting.slot(gpu, current.migUuid());
      return Fitting.migHolds(slot, r)
          ? new Decision.Placed(current, List.of())
          : new Decision.Unplaced(
              "ResizeNotPossible",
              "a MIG instance cannot change size in place: "
                  + current.migProfile()
                  + " does not hold the new size; delete and re-create the claim",
              false);
    }
    Placement p = fitting.fit(gpu, r, self, self);
    return p != null
        ? new Decision.Placed(p, List.of())
        : new Decision.Unplaced(
            "InsufficientCapacity",
            "GPU " + gpu.gpu.uuid() + " has no room for the new size; the claim keeps its slice",
            false);
  }

  /** Per-GPU usage, in GPU order, for metrics. */
  public List<GpuUsage> usage() {
    List<GpuUsage> out = new ArrayList<>();
    for (GpuState g : gpus.values()) {
      int capacity =
          switch (g.gpu.mode()) {
            case GREEN -> g.gpu.groupSms();
            case MIG -> g.gpu.migSlots().stream().mapToInt(MigSlot::sms).sum();
            case MPS, OFF -> g.gpu.smCount();
          };
      int free =
          switch (g.gpu.mode()) {
            case GREEN -> g.freeGroupSms();
            case MIG ->
                g.gpu.migSlots().stream()
                    .filter(m -> !g.migTaken(m.uuid()))
                    .mapToInt(MigSlot::sms)
                    .sum();
            case MPS -> g.gpu.smCount() * (100 - g.usedPercent()) / 100;
            case OFF -> 0;
          };
      out.add(
          new GpuUsage(g.gpu.node(), g.gpu.uuid(), g.gpu.mode(), g.gpu.healthy(), capacity, free));
    }
    return out;
  }

  private void reindex(GpuState gpu) {
    if (gpu.gpu.mode() == Mode.GREEN && gpu.gpu.healthy()) {
      greenIndex.update(gpu);
    }
  }

  /** Best-fit over shapes: least rounding waste, then least left free, then fewest groups. */
  private Placement bestGreen(Request r) {
    long[] bestScore = null;
    GpuState bestGpu = null;
    int[] bestCover = null;
    for (var byProduct : greenIndex.byProduct().entrySet()) {
      if (r.product() != null && !r.product().equals(byProduct.getKey())) {
        continue;
      }
      for (var bucket : byProduct.getValue().entrySet()) {
        Shape shape = bucket.getKey();
        int[] c = cover.cover(shape, r.sms());
        if (c == null) {
          continue;
        }
        int sum = Fitting.sum(c);
        long[] score = {sum - r.sms(), shape.total - sum, c.length};
        int cmp = bestScore == null ? -1 : java.util.Arrays.compare(score, bestScore);
        if (cmp > 0) {
          continue;
        }
        GpuState first = firstEligible(bucket.getValue(), r);
        if (first != null && (cmp < 0 || GPU_ORDER.compare(first, bestGpu) < 0)) {
          bestScore = score;
          bestGpu = first;
          bestCover = c;
        }
      }
    }
    if (bestGpu == null) {
      return null;
    }
    List<Integer> ids = bestGpu.pickGroups(bestCover, Set.of(), Set.of());
    return Placement.green(bestGpu.gpu, ids, Fitting.sum(bestCover), r.memoryBytes());
  }

  private GpuState firstEligible(TreeSet<GpuState> bucket, Request r) {
    for (GpuState g : bucket) {
      if (g.closed == null
          && Fitting.selects(r, g)
          && g.usedMemory() + r.memoryBytes() <= g.gpu.memoryBytes()) {
        return g;
      }
    }
    return null;
  }

  /** MIG and MPS GPUs are few: scan them all and keep the best-fitting. */
  private Placement bestScanned(Request r, Mode mode) {
    Placement best = null;
    long[] bestScore = null;
    for (GpuState g : candidates(r, mode, true)) {
      Placement p = fitting.fit(g, r, Set.of(), Set.of());
      if (p != null) {
        long[] score = Fitting.score(g, p);
        if (bestScore == null || java.util.Arrays.compare(score, bestScore) < 0) {
          best = p;
          bestScore = score;
        }
      }
    }
    return best;
  }

  private List<GpuState> candidates(Request r, Mode mode, boolean healthyOnly) {
    List<GpuState> out = new ArrayList<>();
    for (GpuState g : gpus.values()) {
      if (g.gpu.mode() == mode
          && (!healthyOnly || g.gpu.healthy())
          && g.closed == null
          && Fitting.selects(r, g)) {
        out.add(g);
      }
    }
    return out;
  }

  private List<GpuState> allMatching(Request r) {
    List<GpuState> out = new ArrayList<>();
    for (GpuState g : gpus.values()) {
      if (Fitting.selects(r, g)) {
        out.add(g);
      }
    }
    return out;
  }
}
