package io.smslice.node.resources;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.Resolution;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.nvml.NvmlMigDevice;
import io.smslice.node.plugin.AllocationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * MIG instances: one kubelet device per MIG device the administrator created, named by its UUID.
 * The container gets that MIG device: NVIDIA_VISIBLE_DEVICES for the NVIDIA runtime, and the device
 * nodes (GPU, control, UVM and the instance's capability nodes) for runtimes without it.
 */
public final class MigResources extends ClaimResources {
  private final DeviceNodes nodes;

  public MigResources(
      String resourceName,
      ServedGpus gpus,
      AllocationResolver resolver,
      java.nio.file.Path dev,
      java.nio.file.Path proc) {
    super(resourceName, GpuMode.MIG, gpus, resolver);
    this.nodes = new DeviceNodes(dev, proc);
  }

  @Override
  public String socketName() {
    return "smslice-mig.sock";
  }

  @Override
  public List<Device> devices() {
    List<Device> devices = new ArrayList<>();
    for (DiscoveredGpu g : gpus.inMode(GpuMode.MIG)) {
      for (NvmlMigDevice m : g.migDevices()) {
        devices.add(gpus.device(m.uuid(), g.uuid()));
      }
    }
    return devices;
  }

  @Override
  public List<String> preferred(List<String> available, List<String> mustInclude, int size) {
    List<String> chosen = new ArrayList<>(mustInclude);
    likelyNext(size)
        .map(r -> r.binding().getMigDeviceUuid())
        .filter(available::contains)
        .filter(id -> !chosen.contains(id))
        .ifPresent(chosen::add);
    available.stream().filter(id -> !chosen.contains(id)).forEach(chosen::add);
    return List.copyOf(chosen.subList(0, Math.min(size, chosen.size())));
  }

  @Override
  protected String gpuOf(String deviceId) {
    return find(deviceId).orElseThrow().gpu().uuid();
  }

  @Override
  protected ContainerAllocateResponse answer(Resolution r) throws AllocationException {
    String mig = r.binding().getMigDeviceUuid();
    if (mig == null) {
      throw new AllocationException(
          claimRef(r)
              + "has no MIG device in status.binding; the operator has not finished placing it");
    }
    Located at =
        find(mig)
            .orElseThrow(
                () ->
                    new AllocationException(
                        claimRef(r)
                            + "is bound to MIG device "
                            + mig
                            + ", which this node does not have"));
    return ContainerAllocateResponse.newBuilder()
        .putEnvs("NVIDIA_VISIBLE_DEVICES", mig)
        .addAllDevices(
            nodes.forMig(
                at.gpu().minorNumber(),
                at.device().gpuInstanceId(),
                at.device().computeInstanceId()))
        .build();
  }

  private record Located(DiscoveredGpu gpu, NvmlMigDevice device) {}

  private Optional<Located> find(String migUuid) {
    return gpus.inMode(GpuMode.MIG).stream()
        .flatMap(g -> g.migDevices().stream().map(m -> new Located(g, m)))
        .filter(l -> l.device().uuid().equals(migUuid))
        .findFirst();
  }
}
