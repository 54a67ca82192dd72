package io.smslice.operator.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** GPU shapes for tests, taken from what the drivers report (docs/placement.md). */
public final class Gpus {
  public static final long GIB = 1L << 30;

  private Gpus() {}

  /** H200: split into 15 groups of 8 SMs plus a remainder group of 12. */
  public static Gpu h200(String node, int index) {
    List<SmGroup> groups = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      groups.add(new SmGroup(i, 8));
    }
    groups.add(new SmGroup(15, 12));
    return new Gpu(
        node,
        index,
        "GPU-" + node + "-" + index,
        "NVIDIA H200",
        Mode.GREEN,
        132,
        141 * GIB,
        groups,
        List.of(),
        true);
  }

  /** A100: minimum partition 4, so 27 groups of 4. */
  static Gpu a100(String node, int index) {
    List<SmGroup> groups = new ArrayList<>();
    for (int i = 0; i < 27; i++) {
      groups.add(new SmGroup(i, 4));
    }
    return new Gpu(
        node,
        index,
        "GPU-" + node + "-" + index,
        "NVIDIA A100",
        Mode.GREEN,
        108,
        80 * GIB,
        groups,
        List.of(),
        true);
  }

  static Gpu migH200(String node, int index) {
    String p = "MIG-" + node + "-" + index + "-";
    return new Gpu(
        node,
        index,
        "GPU-" + node + "-" + index,
        "NVIDIA H200",
        Mode.MIG,
        132,
        141 * GIB,
        List.of(),
        List.of(
            new MigSlot("3g.71gb", p + "a", 60, 71 * GIB),
            new MigSlot("1g.18gb", p + "b", 16, 18 * GIB),
            new MigSlot("2g.35gb", p + "c", 32, 35 * GIB),
            new MigSlot("1g.18gb", p + "d", 16, 18 * GIB)),
        true);
  }

  static Gpu mpsH200(String node, int index) {
    return new Gpu(
        node,
        index,
        "GPU-" + node + "-" + index,
        "NVIDIA H200",
        Mode.MPS,
        132,
        141 * GIB,
        List.of(),
        List.of(),
        true);
  }

  static Gpu unhealthy(Gpu g) {
    return new Gpu(
        g.node(),
        g.index(),
        g.uuid(),
        g.product(),
        g.mode(),
        g.smCount(),
        g.memoryBytes(),
        g.groups(),
        g.migSlots(),
        false);
  }

  static NodeInventory node(String name, Gpu... gpus) {
    return new NodeInventory(name, Map.of(), List.of(gpus));
  }

  static NodeInventory node(String name, Map<String, String> labels, Gpu... gpus) {
    return new NodeInventory(name, labels, List.of(gpus));
  }

  static Request compute(String claim, int sms) {
    return new Request(claim, sms, 0, Isolation.COMPUTE, Priority.STANDARD, null, Map.of());
  }

  static Request request(String claim, int sms, Isolation isolation, Priority priority) {
    return new Request(claim, sms, 0, isolation, priority, null, Map.of());
  }
}
