package io.smslice.operator.placement;

import java.util.List;

/**
 * Where a claim sits. GREEN: {@code groups} (ids) and their {@code sms}. MIG: the instance. MPS:
 * {@code mpsPercent} of the GPU's SMs. {@code memoryBytes} is the claim's memory quota counted
 * against the GPU.
 */
public record Placement(
    String node,
    String gpuUuid,
    Mode mode,
    List<Integer> groups,
    int sms,
    String migProfile,
    String migUuid,
    int mpsPercent,
    long memoryBytes) {

  public Placement {
    groups = List.copyOf(groups);
  }

  static Placement green(Gpu gpu, List<Integer> groups, int sms, long memoryBytes) {
    return new Placement(
        gpu.node(), gpu.uuid(), Mode.GREEN, groups, sms, null, null, 0, memoryBytes);
  }

  static Placement mig(Gpu gpu, MigSlot slot) {
    return new Placement(
        gpu.node(),
        gpu.uuid(),
        Mode.MIG,
        List.of(),
        slot.sms(),
        slot.profile(),
        slot.uuid(),
        0,
        slot.memoryBytes());
  }

  static Placement mps(Gpu gpu, int percent, int sms, long memoryBytes) {
    return new Placement(
        gpu.node(), gpu.uuid(), Mode.MPS, List.of(), sms, null, null, percent, memoryBytes);
  }
}
