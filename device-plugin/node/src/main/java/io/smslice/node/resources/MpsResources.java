package io.smslice.node.resources;

import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.MpsServers;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.Resolution;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.Mount;
import io.smslice.node.plugin.AllocationException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MPS shares: one kubelet device per percent of each MPS GPU (100 per GPU). The container runs
 * unmodified CUDA code as a client of the GPU's MPS server, limited to the claim's share of SMs
 * (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) and memory (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT).
 */
public final class MpsResources extends ClaimResources {
  public static final int SHARES_PER_GPU = 100;

  /** Where the GPU's MPS pipe directory appears inside the container. */
  public static final String CONTAINER_PIPE_DIR = "/run/smslice/mps/pipe";

  private final MpsServers servers;
  private final DeviceNodes nodes;

  public MpsResources(
      String resourceName,
      ServedGpus gpus,
      AllocationResolver resolver,
      MpsServers servers,
      Path dev,
      Path proc) {
    super(resourceName, GpuMode.MPS, gpus, resolver);
    this.servers = servers;
    this.nodes = new DeviceNodes(dev, proc);
  }

  @Override
  public String socketName() {
    return "smslice-mps.sock";
  }

  @Override
  public List<Device> devices() {
    List<Device> devices = new ArrayList<>();
    for (DiscoveredGpu g : gpus.inMode(GpuMode.MPS)) {
      for (int share = 0; share < SHARES_PER_GPU; share++) {
        devices.add(gpus.device(DeviceIds.mps(g.uuid(), share), g.uuid()));
      }
    }
    return devices;
  }

  @Override
  protected ContainerAllocateResponse answer(Resolution r) throws AllocationException {
    String uuid = r.binding().getGpuUuid();
    DiscoveredGpu gpu =
        gpus.byUuid(uuid)
            .filter(g -> g.mode() == GpuMode.MPS)
            .orElseThrow(
                () ->
                    new AllocationException(
                        claimRef(r)
                            + "is bound to GPU "
                            + uuid
                            + ", which is not an MPS GPU of this node"));
    ContainerAllocateResponse.Builder out =
        ContainerAllocateResponse.newBuilder()
            .addMounts(
                Mount.newBuilder()
                    .setHostPath(servers.pipeDirectory(uuid).toString())
                    .setContainerPath(CONTAINER_PIPE_DIR))
            .putEnvs("CUDA_MPS_PIPE_DIRECTORY", CONTAINER_PIPE_DIR)
            .putEnvs("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(percent(r.claim(), gpu)))
            .putEnvs("NVIDIA_VISIBLE_DEVICES", uuid)
            .addAllDevices(nodes.forGpu(gpu.minorNumber()));
    Quantity memory = r.claim().getSpec().getMemory();
    if (memory != null) {
      long mib =
          Quantity.getAmountInBytes(memory)
              .divide(BigDecimal.valueOf(1024 * 1024), java.math.RoundingMode.CEILING)
              .longValueExact();
      // The only GPU the container sees is device 0.
      out.putEnvs("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=" + mib + "M");
    }
    return out.build();
  }

  /** The claim's share of the GPU's SMs, in percent, rounded up. */
  static int percent(SliceClaim claim, DiscoveredGpu gpu) {
    Integer sms = claim.getStatus().getBinding().getSms();
    if (sms == null) {
      sms = claim.getSpec().getSms();
    }
    if (sms == null) {
      return SHARES_PER_GPU;
    }
    int p = (int) Math.ceil(100.0 * sms / gpu.smCount());
    return Math.max(1, Math.min(SHARES_PER_GPU, p));
  }
}
