package io.smslice.node.resources;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.Resolution;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.plugin.AllocationException;
import io.smslice.node.plugin.ResourceManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the resources of the three GPU modes share: the GPUs of one mode, and an Allocate that
 * checks the device ids, finds the pod and claim they serve, and lets the mode answer for it.
 */
abstract class ClaimResources implements ResourceManager {
  protected final String resourceName;
  protected final ServedGpus gpus;
  private final AllocationResolver resolver;
  private final GpuMode mode;

  ClaimResources(String resourceName, GpuMode mode, ServedGpus gpus, AllocationResolver resolver) {
    this.resourceName = resourceName;
    this.mode = mode;
    this.gpus = gpus;
    this.resolver = resolver;
  }

  /** The container's answer for the claim this Allocate was resolved to. */
  protected abstract ContainerAllocateResponse answer(Resolution r) throws AllocationException;

  @Override
  public final String resourceName() {
    return resourceName;
  }

  @Override
  public final void addListener(Runnable listener) {
    gpus.onHealthChange(listener);
  }

  /** Devices on the GPU the claim served next is bound to, so the kubelet's pick fits it. */
  @Override
  public List<String> preferred(List<String> available, List<String> mustInclude, int size) {
    String likely = likelyNext(size).map(r -> r.binding().getGpuUuid()).orElse(null);
    return GpuPacking.choose(available, mustInclude, size, likely);
  }

  /**
   * Finds and holds each container, builds its answer, then records them all. A refusal, or a
   * failure to record, releases every container of the call for a later Allocate.
   */
  @Override
  public final List<ContainerAllocateResponse> allocate(List<List<String>> containers)
      throws AllocationException {
    Set<String> listed = devices().stream().map(Device::getID).collect(Collectors.toSet());
    List<AllocationResolver.Hold> holds = new ArrayList<>();
    try {
      List<ContainerAllocateResponse> answers = new ArrayList<>();
      for (List<String> deviceIds : containers) {
        Set<String> onGpus = new HashSet<>();
        for (String id : deviceIds) {
          if (!listed.contains(id)) {
            throw new AllocationException(
                "smslice: " + id + " is not a " + resourceName + " device of this node");
          }
          onGpus.add(gpuOf(id));
        }
        AllocationResolver.Hold hold =
            resolver.hold(new AllocationResolver.Request(resourceName, mode, deviceIds, onGpus));
        holds.add(hold);
        answers.add(answer(hold.resolution()));
      }
      resolver.commit(holds);
      return answers;
    } finally {
      holds.forEach(AllocationResolver.Hold::close);
    }
  }

  /** The claim the kubelet most likely allocates for next. */
  protected final Optional<Resolution> likelyNext(int size) {
    return resolver.next(resourceName, mode, size);
  }

  /** The UUID of the GPU one of this resource's listed devices is on. */
  protected String gpuOf(String deviceId) {
    return DeviceIds.gpuOf(deviceId);
  }

  /** "smslice: claim ns/name " for messages the user reads on the pod. */
  protected static String claimRef(Resolution r) {
    return "smslice: claim " + r.namespace() + "/" + r.claimName() + " ";
  }
}
