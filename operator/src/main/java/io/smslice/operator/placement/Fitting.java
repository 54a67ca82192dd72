package io.smslice.operator.placement;

import io.smslice.operator.placement.GpuState.Allocation;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Whether and how a request fits on one GPU, per mode; plus the checks and messages around it. */
final class Fitting {
  private static final Comparator<MigSlot> SMALLEST_SLOT =
      Comparator.comparingLong(MigSlot::memoryBytes)
          .thenComparingInt(MigSlot::sms)
          .thenComparing(MigSlot::uuid);

  private final GroupCover cover;

  Fitting(GroupCover cover) {
    this.cover = cover;
  }

  /**
   * The placement on {@code g} counting {@code alsoFree} claims' slices as free, or null. Green
   * groups of {@code prefer} claims are chosen first.
   */
  Placement fit(GpuState g, Request r, Set<String> alsoFree, Set<String> prefer) {
    long memoryAfter = g.usedMemory() - freedMemory(g, alsoFree) + r.memoryBytes();
    switch (g.gpu.mode()) {
      case GREEN -> {
        int[] c = cover.cover(g.shape(alsoFree), r.sms());
        if (c == null || memoryAfter > g.gpu.memoryBytes()) {
          return null;
        }
        return Placement.green(g.gpu, g.pickGroups(c, alsoFree, prefer), sum(c), r.memoryBytes());
      }
      case MIG -> {
        return g.gpu.migSlots().stream()
            .filter(m -> !g.migTaken(m.uuid()) || heldBy(g, m.uuid(), alsoFree))
            .filter(m -> migHolds(m, r))
            .min(SMALLEST_SLOT)
            .map(m -> Placement.mig(g.gpu, m))
            .orElse(null);
      }
      case MPS -> {
        int percent = percent(g.gpu, r.sms());
        int freedPercent =
            g.allocations().stream()
                .filter(a -> alsoFree.contains(a.claim()))
                .mapToInt(a -> a.placement().mpsPercent())
                .sum();
        if (g.usedPercent() - freedPercent + percent > 100 || memoryAfter > g.gpu.memoryBytes()) {
          return null;
        }
        return Placement.mps(g.gpu, percent, r.sms(), r.memoryBytes());
      }
      default -> {
        return null;
      }
    }
  }

  /** Best-fit order of MIG and MPS candidates: smallest instance; fullest GPU after placing. */
  static long[] score(GpuState g, Placement p) {
    return switch (p.mode()) {
      case MIG -> new long[] {p.memoryBytes(), p.sms()};
      case MPS -> new long[] {100 - g.usedPercent() - p.mpsPercent()};
      default -> new long[] {0};
    };
  }

  /** MPS share: the percentage of the GPU's SMs, rounded up. */
  static int percent(Gpu gpu, int sms) {
    return (int) Math.ceilDiv(100L * sms, gpu.smCount());
  }

  static boolean migHolds(MigSlot slot, Request r) {
    return slot != null && slot.sms() >= r.sms() && slot.memoryBytes() >= r.memoryBytes();
  }

  static MigSlot slot(GpuState g, String uuid) {
    return g.gpu.migSlots().stream().filter(m -> m.uuid().equals(uuid)).findFirst().orElse(null);
  }

  private static boolean heldBy(GpuState g, String migUuid, Set<String> claims) {
    return g.allocations().stream()
        .anyMatch(a -> claims.contains(a.claim()) && migUuid.equals(a.placement().migUuid()));
  }

  private static long freedMemory(GpuState g, Set<String> claims) {
    if (claims.isEmpty() || g.gpu.mode() == Mode.MIG) {
      return 0;
    }
    long freed = 0;
    for (Allocation a : g.allocations()) {
      if (claims.contains(a.claim())) {
        freed += a.placement().memoryBytes();
      }
    }
    return freed;
  }

  static boolean selects(Request r, GpuState g) {
    if (r.product() != null && !r.product().equals(g.gpu.product())) {
      return false;
    }
    for (Map.Entry<String, String> e : r.nodeLabels().entrySet()) {
      if (!e.getValue().equals(g.nodeLabels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  static String invalid(Request r) {
    if (r.isolation() != Isolation.MEMORY && r.sms() < 1) {
      return "spec.sms is required unless isolation is Memory: say how many SMs the slice needs";
    }
    if (r.isolation() == Isolation.MEMORY && r.memoryBytes() == 0) {
      return "spec.memory is required when isolation is Memory: a MIG instance is chosen by its"
          + " memory";
    }
    return null;
  }

  /**
   * Auto tries a green slice first, then a MIG instance, then an MPS share; a memory-bound claim
   * tries MIG first, since only MIG partitions memory bandwidth and L2.
   */
  static List<Mode> modesFor(Request r) {
    return switch (r.isolation()) {
      case COMPUTE -> List.of(Mode.GREEN);
      case MEMORY -> List.of(Mode.MIG);
      case SHARED -> List.of(Mode.MPS);
      case AUTO ->
          r.memoryBound()
              ? List.of(Mode.MIG, Mode.GREEN, Mode.MPS)
              : List.of(Mode.GREEN, Mode.MIG, Mode.MPS);
    };
  }

  /** Why nothing was found; permanent when no matching GPU could hold the claim even empty. */
  static Decision.Unplaced unplaced(Request r, List<Mode> modes, List<GpuState> matching) {
    boolean someCouldHold = false;
    for (GpuState g : matching) {
      if (modes.contains(g.gpu.mode()) && couldHoldEmpty(g.gpu, r)) {
        someCouldHold = true;
        break;
      }
    }
    String wanted = describe(r, modes);
    if (someCouldHold) {
      return new Decision.Unplaced(
          "InsufficientCapacity",
          "every GPU that could hold "
              + wanted
              + " is taken, unhealthy or on a node closed to new work (cordoned, NotReady or"
              + " tainted); waiting for capacity",
          false);
    }
    return new Decision.Unplaced(
        "NoSuitableGpu",
        "no GPU in the cluster can hold " + wanted + largest(matching, modes),
        true);
  }

  private static boolean couldHoldEmpty(Gpu gpu, Request r) {
    return switch (gpu.mode()) {
      case GREEN -> gpu.groupSms() >= r.sms() && gpu.memoryBytes() >= r.memoryBytes();
      case MIG -> gpu.migSlots().stream().anyMatch(m -> migHolds(m, r));
      case MPS -> gpu.smCount() >= r.sms() && gpu.memoryBytes() >= r.memoryBytes();
      case OFF -> false;
    };
  }

  private static String describe(Request r, List<Mode> modes) {
    StringBuilder s = new StringBuilder();
    s.append(r.sms() > 0 ? r.sms() + " SMs" : "the claim");
    if (r.memoryBytes() > 0) {
      s.append(" with ").append(r.memoryBytes()).append(" bytes of memory");
    }
    s.append(" in mode ")
        .append(modes.stream().map(Mode::name).collect(Collectors.joining(" or ")));
    if (r.product() != null) {
      s.append(" on product ").append(r.product());
    }
    if (!r.nodeLabels().isEmpty()) {
      s.append(" on nodes labelled ").append(r.nodeLabels());
    }
    return s.toString();
  }

  private static String largest(List<GpuState> matching, List<Mode> modes) {
    int most = 0;
    for (GpuState g : matching) {
      if (modes.contains(g.gpu.mode())) {
        int sms =
            switch (g.gpu.mode()) {
              case GREEN -> g.gpu.groupSms();
              case MIG -> g.gpu.migSlots().stream().mapToInt(MigSlot::sms).max().orElse(0);
              default -> g.gpu.smCount();
            };
        most = Math.max(most, sms);
      }
    }
    return most == 0 ? " (no matching GPU in that mode)" : " (largest matching: " + most + " SMs)";
  }

  static int sum(int[] values) {
    int s = 0;
    for (int v : values) {
      s += v;
    }
    return s;
  }
}
