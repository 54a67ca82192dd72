package io.smslice.node.resources;

import io.smslice.agent.ClaimAccess;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.Resolution;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.Mount;
import io.smslice.node.plugin.AllocationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Green-mode SMs: one kubelet device per SM of each green GPU, so the kubelet counts SMs. The
 * container gets no GPU at all; it gets its claim's agent socket directory and a token, and its
 * kernels run in the claim's green context inside the agent.
 */
public final class GreenSmResources extends ClaimResources {
  /** Where the claim's socket directory appears inside the container. */
  public static final String CONTAINER_CLAIM_DIR = "/run/smslice/claim";

  private final ClaimAccess agent;
  private final Duration endpointWait;

  /**
   * @param endpointWait how long Allocate waits for the agent to serve a freshly bound claim
   */
  public GreenSmResources(
      String resourceName,
      ServedGpus gpus,
      AllocationResolver resolver,
      ClaimAccess agent,
      Duration endpointWait) {
    super(resourceName, GpuMode.Green, gpus, resolver);
    this.agent = agent;
    this.endpointWait = endpointWait;
  }

  @Override
  public String socketName() {
    return "smslice-sm.sock";
  }

  @Override
  public List<Device> devices() {
    List<Device> devices = new ArrayList<>();
    for (DiscoveredGpu g : gpus.inMode(GpuMode.Green)) {
      for (int sm = 0; sm < g.smCount(); sm++) {
        devices.add(gpus.device(DeviceIds.sm(g.uuid(), sm), g.uuid()));
      }
    }
    return devices;
  }

  @Override
  protected ContainerAllocateResponse answer(Resolution r) throws AllocationException {
    ClaimEndpoint endpoint = awaitEndpoint(r);
    String token = agent.issueToken(r.namespace(), r.claimName(), r.podUid(), r.container());
    String socketInContainer = CONTAINER_CLAIM_DIR + "/" + endpoint.socket().getFileName();
    return ContainerAllocateResponse.newBuilder()
        .addMounts(
            Mount.newBuilder()
                .setHostPath(endpoint.directory().toString())
                .setContainerPath(CONTAINER_CLAIM_DIR)
                .setReadOnly(false))
        .putEnvs("SMSLICE_SOCKET", socketInContainer)
        .putEnvs("SMSLICE_CLAIM", r.namespace() + "/" + r.claimName())
        .putEnvs("SMSLICE_TOKEN", token)
        .build();
  }

  private ClaimEndpoint awaitEndpoint(Resolution r) throws AllocationException {
    Instant deadline = Instant.now().plus(endpointWait);
    while (true) {
      Optional<ClaimEndpoint> endpoint = agent.endpoint(r.namespace(), r.claimName());
      if (endpoint.isPresent()) {
        return endpoint.get();
      }
      if (!Instant.now().isBefore(deadline)) {
        throw new AllocationException(
            claimRef(r)
                + "is not served by the node agent yet (its green context was not created within "
                + endpointWait.toSeconds()
                + " s); see the smslice node pod's log on this node");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AllocationException("smslice: interrupted while waiting for the agent");
      }
    }
  }
}
