package io.smslice.operator.inventory;

import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.MigInstance;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.placement.Gpu;
import io.smslice.operator.placement.MigSlot;
import io.smslice.operator.placement.Mode;
import io.smslice.operator.placement.NodeInventory;
import io.smslice.operator.placement.SmGroup;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Turns SliceNodes (and what their Nodes say) into the engine's inventory. A SliceNode without a
 * status or with a heartbeat older than the timeout is left out: its node is lost.
 */
public final class InventoryReader {
  private InventoryReader() {}

  public static List<NodeInventory> read(
      Collection<SliceNode> sliceNodes,
      Map<String, NodeFacts> nodes,
      Instant now,
      Duration heartbeatTimeout) {
    List<NodeInventory> out = new ArrayList<>();
    for (SliceNode sn : sliceNodes) {
      String name = sn.getMetadata().getName();
      if (!isLive(sn, now, heartbeatTimeout)) {
        continue;
      }
      List<Gpu> gpus = new ArrayList<>();
      for (NodeGpu g : sn.getStatus().getGpus()) {
        gpus.add(gpu(name, g));
      }
      // A SliceNode whose Node the operator has not seen (yet) is taken as open and unlabelled.
      NodeFacts facts = nodes.getOrDefault(name, new NodeFacts(Map.of(), null));
      out.add(new NodeInventory(name, facts.labels(), gpus, facts.closed()));
    }
    out.sort(Comparator.comparing(NodeInventory::name));
    return out;
  }

  /** Live: the node side reported a parseable heartbeat within the timeout. */
  public static boolean isLive(SliceNode sn, Instant now, Duration heartbeatTimeout) {
    if (sn.getStatus() == null || sn.getStatus().getHeartbeat() == null) {
      return false;
    }
    try {
      Instant beat = Instant.parse(sn.getStatus().getHeartbeat());
      return !beat.plus(heartbeatTimeout).isBefore(now);
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static Gpu gpu(String node, NodeGpu g) {
    List<SmGroup> groups = new ArrayList<>();
    for (var group : g.getSmGroups()) {
      groups.add(new SmGroup(group.getId(), group.getSms()));
    }
    List<MigSlot> slots = new ArrayList<>();
    for (MigInstance m : g.getMigInstances()) {
      slots.add(new MigSlot(m.getProfile(), m.getUuid(), m.getSms(), bytes(m.getMemory())));
    }
    return new Gpu(
        node,
        g.getIndex(),
        g.getUuid(),
        g.getProduct(),
        mode(g.getMode()),
        g.getSmCount(),
        bytes(g.getMemory()),
        groups,
        slots,
        g.getHealth() != GpuHealth.Unhealthy);
  }

  public static Mode mode(io.smslice.api.v1alpha1.node.GpuMode mode) {
    if (mode == null) {
      return Mode.OFF;
    }
    return switch (mode) {
      case Green -> Mode.GREEN;
      case MIG -> Mode.MIG;
      case MPS -> Mode.MPS;
      case Off -> Mode.OFF;
    };
  }

  public static long bytes(Quantity q) {
    return q == null ? 0 : Quantity.getAmountInBytes(q).longValue();
  }
}
