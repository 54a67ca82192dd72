package io.smslice.operator.placement;

import java.util.List;

/**
 * One GPU as the engine sees it. {@code groups} is the GPU's one SM split (green mode): a slice is
 * a set of these, so the split itself carries the GPU's granularity.
 */
public record Gpu(
    String node,
    int index,
    String uuid,
    String product,
    Mode mode,
    int smCount,
    long memoryBytes,
    List<SmGroup> groups,
    List<MigSlot> migSlots,
    boolean healthy) {

  public Gpu {
    groups = List.copyOf(groups);
    migSlots = List.copyOf(migSlots);
    if (smCount < 1) {
      throw new IllegalArgumentException("GPU " + uuid + " reports " + smCount + " SMs");
    }
  }

  /** SMs of all groups: what green slices can cover (the split may leave none unused). */
  int groupSms() {
    int total = 0;
    for (SmGroup g : groups) {
      total += g.sms();
    }
    return total;
  }
}
