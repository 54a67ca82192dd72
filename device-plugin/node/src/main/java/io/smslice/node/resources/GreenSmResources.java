package io.smslice.node.resources;

import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.agent.Agent;
import io.smslice.agent.ClaimAccess;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.agent.TenantEnvironmentFiles;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.AllocationResolver;
import io.smslice.node.allocation.Resolution;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.Mount;
import io.smslice.node.plugin.AllocationException;
import io.smslice.node.transparent.InterposerInstall;
import io.smslice.node.transparent.TransparentTenants;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Green-mode SMs: one kubelet device per SM of each green GPU, so the kubelet counts SMs. Every
 * container gets its claim's agent socket directory and a token (the client library's path). A
 * transparent container also gets the GPU, the interposer library with an ld.so.preload that loads
 * it into every process, and the GPU's MPS server, so that unmodified CUDA programs run in the
 * claim's SM groups.
 */
public final class GreenSmResources extends ClaimResources {
  /** Where a transparent container finds its claim's variables (the interposer reads it). */
  static final String CONTAINER_TENANT_ENV = TenantEnvironmentFiles.CONTAINER_PATH;

  /** What that file holds: what the interposer and the CUDA driver read from the environment. */
  private static final Set<String> TENANT_ENV_KEYS =
      Set.of(
          "SMSLICE_SOCKET",
          "SMSLICE_CLAIM",
          "SMSLICE_TOKEN",
          "CUDA_MPS_PIPE_DIRECTORY",
          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
          "SMSLICE_GUARD",
          "SMSLICE_PRIORITY");

  /** Where the claim's socket directory appears inside the container. */
  public static final String CONTAINER_CLAIM_DIR = "/run/smslice/claim";

  private final ClaimAccess agent;
  private final Duration endpointWait;
  private final Optional<TransparentTenants> transparent;
  private final DeviceNodes nodes;

  /**
   * @param endpointWait how long Allocate waits for the agent to serve a freshly bound claim
   * @param transparent empty when this node serves no unmodified programs
   */
  public GreenSmResources(
      String resourceName,
      ServedGpus gpus,
      AllocationResolver resolver,
      ClaimAccess agent,
      Duration endpointWait,
      Optional<TransparentTenants> transparent,
      Path dev,
      Path proc) {
    super(resourceName, GpuMode.Green, gpus, resolver);
    this.agent = agent;
    this.endpointWait = endpointWait;
    this.transparent = transparent;
    this.nodes = new DeviceNodes(dev, proc);
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
    Optional<TransparentTenants> tenants = transparentFor(r);
    ClaimEndpoint endpoint = awaitEndpoint(r);
    ContainerAllocateResponse.Builder out = ContainerAllocateResponse.newBuilder();
    if (tenants.isPresent()) {
      addTransparent(out, r, tenants.get());
    }
    String token = agent.issueToken(r.namespace(), r.claimName(), r.podUid(), r.container());
    String socketInContainer = CONTAINER_CLAIM_DIR + "/" + endpoint.socket().getFileName();
    out.addMounts(
            Mount.newBuilder()
                .setHostPath(endpoint.directory().toString())
                .setContainerPath(CONTAINER_CLAIM_DIR)
                .setReadOnly(false))
        .putEnvs("SMSLICE_SOCKET", socketInContainer)
        .putEnvs("SMSLICE_CLAIM", r.namespace() + "/" + r.claimName())
        .putEnvs("SMSLICE_TOKEN", token);
    if (tenants.isPresent()) {
      out.addMounts(readOnly(tenantEnvironment(r, out.getEnvsMap()), CONTAINER_TENANT_ENV));
    }
    return out.build();
  }

  /**
   * The variables the interposer and the driver read, in a file for the container: processes whose
   * environment was scrubbed (env -i, sudo) take them from there.
   */
  private Path tenantEnvironment(Resolution r, Map<String, String> envs)
      throws AllocationException {
    Map<String, String> kept = new TreeMap<>(envs);
    kept.keySet().retainAll(TENANT_ENV_KEYS);
    try {
      return agent.tenantEnvironment(r.namespace(), r.claimName(), r.podUid(), r.container(), kept);
    } catch (RuntimeException e) {
      throw new AllocationException(
          claimRef(r) + "cannot write the container's tenant environment: " + e.getMessage());
    }
  }

  /** The transparent part of the answer, or empty when the pod opted out (or the node has none). */
  private Optional<TransparentTenants> transparentFor(Resolution r) throws AllocationException {
    Map<String, String> annotations = r.pod().getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(TransparentTenants.ANNOTATION);
    if (value == null) {
      return transparent;
    }
    switch (value) {
      case "false":
        return Optional.empty();
      case "true":
        if (transparent.isEmpty()) {
          throw new AllocationException(
              claimRef(r)
                  + "cannot run unmodified programs: transparent slices are off in this node's"
                  + " config (transparent.enabled)."
                  + " Remove the pod's "
                  + TransparentTenants.ANNOTATION
                  + " annotation to use the client library only, or ask the cluster admin");
        }
        return transparent;
      default:
        throw new AllocationException(
            "smslice: pod "
                + r.namespace()
                + "/"
                + r.pod().getMetadata().getName()
                + " has annotation "
                + TransparentTenants.ANNOTATION
                + "=\""
                + value
                + "\": write \"true\" or \"false\" (\"false\" gives the client library only)");
    }
  }

  private void addTransparent(
      ContainerAllocateResponse.Builder out, Resolution r, TransparentTenants tenants)
      throws AllocationException {
    Optional<String> problem = tenants.interposer().problem();
    if (problem.isPresent()) {
      throw new AllocationException(
          claimRef(r) + "cannot run unmodified programs: " + problem.get());
    }
    String uuid = r.binding().getGpuUuid();
    DiscoveredGpu gpu =
        gpus.byUuid(uuid)
            .filter(g -> g.mode() == GpuMode.Green)
            .orElseThrow(
                () ->
                    new AllocationException(
                        claimRef(r)
                            + "is bound to GPU "
                            + uuid
                            + ", not a green GPU of this node"));
    out.addMounts(readOnly(tenants.interposer().library(), InterposerInstall.CONTAINER_LIBRARY))
        .addMounts(readOnly(tenants.interposer().preload(), TransparentTenants.CONTAINER_PRELOAD))
        .addMounts(
            Mount.newBuilder()
                .setHostPath(tenants.mps().pipeDirectory(gpu.uuid()).toString())
                .setContainerPath(TransparentTenants.CONTAINER_PIPE_DIR))
        .addMounts(
            Mount.newBuilder()
                .setHostPath(tenants.shm().toString())
                .setContainerPath(TransparentTenants.CONTAINER_SHM))
        .putEnvs("LD_PRELOAD", InterposerInstall.CONTAINER_LIBRARY)
        .putEnvs("CUDA_MPS_PIPE_DIRECTORY", TransparentTenants.CONTAINER_PIPE_DIR)
        .putEnvs("NVIDIA_VISIBLE_DEVICES", gpu.uuid())
        .addAllDevices(nodes.forGpu(gpu.minorNumber()));
    // The GPU's interference guard, in the tenants' /dev/shm (the agent keeps it off unless
    // latency-critical and best-effort claims share the GPU).
    Priority priority = r.claim().getSpec().getPriority();
    out.putEnvs(
            "SMSLICE_GUARD",
            Agent.guardFile(Path.of(TransparentTenants.CONTAINER_SHM), gpu.uuid()).toString())
        .putEnvs("SMSLICE_PRIORITY", (priority == null ? Priority.Standard : priority).name());
    Quantity memory = r.claim().getSpec().getMemory();
    if (memory != null) {
      // MPS caps each client process's device memory; the container sees its GPU as device 0.
      long mib =
          Quantity.getAmountInBytes(memory)
              .divide(BigDecimal.valueOf(1024 * 1024), RoundingMode.CEILING)
              .longValueExact();
      out.putEnvs("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=" + mib + "M");
    }
  }

  private static Mount readOnly(Path host, String container) {
    return Mount.newBuilder()
        .setHostPath(host.toString())
        .setContainerPath(container)
        .setReadOnly(true)
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
