package io.smslice.node.discovery;

import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.MigInstance;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SmGroup;
import io.smslice.node.health.GpuCondition;

/** The SliceNode view of a discovered GPU. */
public final class NodeGpus {
  private static final long MIB = 1024 * 1024;

  private NodeGpus() {}

  public static NodeGpu toApi(DiscoveredGpu gpu, GpuCondition condition) {
    NodeGpu g = new NodeGpu();
    g.setIndex(gpu.index());
    g.setUuid(gpu.uuid());
    g.setProduct(gpu.product());
    g.setMode(gpu.mode());
    g.setSmCount(gpu.smCount());
    g.setMinPartitionSize(gpu.minPartitionSize());
    g.setCoscheduledAlignment(gpu.coscheduledAlignment());
    g.setSmGroups(gpu.split().stream().map(s -> new SmGroup(s.id(), s.sms())).toList());
    g.setMigInstances(
        gpu.migDevices().stream()
            .map(m -> new MigInstance(m.profile(), m.uuid(), m.sms(), bytes(m.memoryBytes())))
            .toList());
    g.setMemory(bytes(gpu.memoryBytes()));
    g.setHealth(condition.healthy() ? GpuHealth.Healthy : GpuHealth.Unhealthy);
    g.setHealthReason(condition.reason());
    return g;
  }

  /** A byte count as a quantity, in Mi when it is a whole number of MiB. */
  public static Quantity bytes(long bytes) {
    return bytes % MIB == 0 ? new Quantity(bytes / MIB + "Mi") : new Quantity(Long.toString(bytes));
  }
}
