package io.smslice.node.dra;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.SplitGroup;
import io.smslice.node.discovery.DiscoveredGpu;
import java.util.List;
import java.util.Optional;

/**
 * A green-mode GPU as the DRA driver offers it: one device whose SMs are the split's groups of the
 * minimum partition size. Those groups are interchangeable, so the scheduler only counts SMs; a
 * remainder group of another size (the H200's 12-SM group) is left out, as a claim could not be
 * told whether it got it.
 *
 * @param groupIds the ids of the groups a claim may be given, ascending
 */
public record DraGpu(
    int index,
    String uuid,
    String product,
    long memoryBytes,
    int groupSize,
    List<Integer> groupIds,
    DiscoveredGpu discovered) {
  public DraGpu {
    groupIds = List.copyOf(groupIds);
  }

  /** The GPU as a DRA device, or empty when it is not served in green mode. */
  public static Optional<DraGpu> of(DiscoveredGpu g) {
    if (g.mode() != GpuMode.Green || g.minPartitionSize() == null || g.minPartitionSize() <= 0) {
      return Optional.empty();
    }
    int size = g.minPartitionSize();
    List<Integer> ids =
        g.split().stream().filter(s -> s.sms() == size).map(SplitGroup::id).sorted().toList();
    if (ids.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new DraGpu(g.index(), g.uuid(), g.product(), g.memoryBytes(), size, ids, g));
  }

  public String deviceName() {
    return DraDriver.deviceName(index);
  }

  /** SMs a claim can be given on this GPU: every group of the partition size. */
  public int smCount() {
    return groupSize * groupIds.size();
  }
}
