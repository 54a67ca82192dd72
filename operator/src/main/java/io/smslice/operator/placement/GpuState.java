package io.smslice.operator.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** What is taken on one GPU: groups (green), MIG instances, MPS percent, memory quota. */
final class GpuState {
  final Gpu gpu;
  final Map<String, String> nodeLabels;

  /** Why the GPU's node takes no new slices, or null. */
  final String closed;

  private final Map<Integer, Integer> positionOfId = new HashMap<>();
  private final BitSet usedGroups = new BitSet();
  private final Set<String> usedMig = new HashSet<>();
  private int usedPercent;
  private long usedMemory;
  private final Map<String, Allocation> claims = new TreeMap<>();
  private Shape freeShape;

  /** A claim's slice on this GPU. */
  record Allocation(String claim, Priority priority, Placement placement) {}

  GpuState(Gpu gpu, Map<String, String> nodeLabels, String closed) {
    this.gpu = gpu;
    this.nodeLabels = nodeLabels;
    this.closed = closed;
    for (int i = 0; i < gpu.groups().size(); i++) {
      positionOfId.put(gpu.groups().get(i).id(), i);
    }
  }

  Collection<Allocation> allocations() {
    return claims.values();
  }

  int usedPercent() {
    return usedPercent;
  }

  long usedMemory() {
    return usedMemory;
  }

  boolean migTaken(String uuid) {
    return usedMig.contains(uuid);
  }

  /** SMs of the groups not taken (green). */
  int freeGroupSms() {
    return shape(Set.of()).total;
  }

  /** The sizes of free groups plus those of {@code alsoFree} claims' groups. */
  Shape shape(Set<String> alsoFree) {
    if (alsoFree.isEmpty() && freeShape != null) {
      return freeShape;
    }
    BitSet pool = freePositions(alsoFree);
    int[] sizes = new int[pool.cardinality()];
    int k = 0;
    for (int p = pool.nextSetBit(0); p >= 0; p = pool.nextSetBit(p + 1)) {
      sizes[k++] = gpu.groups().get(p).sms();
    }
    Arrays.sort(sizes);
    Shape shape = new Shape(sizes);
    if (alsoFree.isEmpty()) {
      freeShape = shape;
    }
    return shape;
  }

  /**
   * Ids of groups with the given sizes, taken from the free pool (plus {@code alsoFree} claims'
   * groups) in ascending id order, preferring groups of {@code prefer} claims (a resize keeps what
   * it has).
   */
  List<Integer> pickGroups(int[] sizes, Set<String> alsoFree, Set<String> prefer) {
    BitSet pool = freePositions(alsoFree);
    BitSet preferred = new BitSet();
    for (String c : prefer) {
      preferred.or(positionsOf(claims.get(c)));
    }
    List<Integer> ids = new ArrayList<>();
    for (int size : sizes) {
      int p = firstOfSize(pool, preferred, size);
      if (p < 0) {
        p = firstOfSize(pool, null, size);
      }
      pool.clear(p);
      ids.add(gpu.groups().get(p).id());
    }
    ids.sort(null);
    return ids;
  }

  private int firstOfSize(BitSet pool, BitSet within, int size) {
    int best = -1;
    for (int p = pool.nextSetBit(0); p >= 0; p = pool.nextSetBit(p + 1)) {
      if (gpu.groups().get(p).sms() == size && (within == null || within.get(p))) {
        if (best < 0 || gpu.groups().get(p).id() < gpu.groups().get(best).id()) {
          best = p;
        }
      }
    }
    return best;
  }

  private BitSet freePositions(Set<String> alsoFree) {
    BitSet pool = new BitSet();
    pool.set(0, gpu.groups().size());
    pool.andNot(usedGroups);
    for (String c : alsoFree) {
      pool.or(positionsOf(claims.get(c)));
    }
    return pool;
  }

  private BitSet positionsOf(Allocation a) {
    BitSet bits = new BitSet();
    if (a != null) {
      for (int id : a.placement().groups()) {
        bits.set(positionOfId.get(id));
      }
    }
    return bits;
  }

  /** Why the placement cannot be recorded here, or null when it was recorded. */
  String add(Allocation a) {
    Placement p = a.placement();
    if (claims.containsKey(a.claim())) {
      return a.claim() + " is already recorded on " + gpu.uuid();
    }
    if (p.mode() != gpu.mode()) {
      return gpu.uuid() + " is in mode " + gpu.mode() + ", not " + p.mode();
    }
    if (p.mode() != Mode.MIG && usedMemory + p.memoryBytes() > gpu.memoryBytes()) {
      return "memory quotas on " + gpu.uuid() + " would exceed its memory";
    }
    switch (p.mode()) {
      case GREEN -> {
        BitSet bits = new BitSet();
        int sms = 0;
        for (int id : p.groups()) {
          Integer pos = positionOfId.get(id);
          if (pos == null) {
            return "SM group " + id + " does not exist on " + gpu.uuid();
          }
          if (usedGroups.get(pos) || bits.get(pos)) {
            return "SM group " + id + " of " + gpu.uuid() + " is already taken";
          }
          bits.set(pos);
          sms += gpu.groups().get(pos).sms();
        }
        if (p.groups().isEmpty() || sms != p.sms()) {
          return "SM groups " + p.groups() + " do not hold " + p.sms() + " SMs";
        }
        usedGroups.or(bits);
        freeShape = null;
      }
      case MIG -> {
        if (gpu.migSlots().stream().noneMatch(m -> m.uuid().equals(p.migUuid()))) {
          return "MIG instance " + p.migUuid() + " does not exist on " + gpu.uuid();
        }
        if (!usedMig.add(p.migUuid())) {
          return "MIG instance " + p.migUuid() + " is already taken";
        }
      }
      case MPS -> {
        if (usedPercent + p.mpsPercent() > 100) {
          return "MPS share of " + gpu.uuid() + " would exceed 100%";
        }
        usedPercent += p.mpsPercent();
      }
      case OFF -> {
        return "GPU mode Off takes no claims";
      }
    }
    if (p.mode() != Mode.MIG) {
      usedMemory += p.memoryBytes();
    }
    claims.put(a.claim(), a);
    return null;
  }

  void remove(String claim) {
    Allocation a = claims.remove(claim);
    if (a == null) {
      return;
    }
    Placement p = a.placement();
    switch (p.mode()) {
      case GREEN -> {
        usedGroups.andNot(positionsOf(a));
        freeShape = null;
      }
      case MIG -> usedMig.remove(p.migUuid());
      case MPS -> usedPercent -= p.mpsPercent();
      case OFF -> {}
    }
    if (p.mode() != Mode.MIG) {
      usedMemory -= p.memoryBytes();
    }
  }
}
