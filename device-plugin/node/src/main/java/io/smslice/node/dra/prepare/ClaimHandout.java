package io.smslice.node.dra.prepare;

import io.smslice.agent.Agent;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.agent.TenantEnvironmentFiles;
import io.smslice.node.dra.DraGpu;
import io.smslice.node.dra.cdi.ContainerEdits;
import io.smslice.node.dra.claims.PrepareException;
import io.smslice.node.kubelet.v1beta1.DeviceSpec;
import io.smslice.node.resources.DeviceNodes;
import io.smslice.node.resources.GreenSmResources;
import io.smslice.node.transparent.InterposerInstall;
import io.smslice.node.transparent.TransparentTenants;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What every container of a prepared claim gets, the same as the device plugin's Allocate gives a
 * green-mode container (GreenSmResources): the claim's socket directory and token, and for a
 * transparent claim the GPU, the interposer with its ld.so.preload, the GPU's MPS server and the
 * tenant.env file; plus the claim's GPU and groups, which the device plugin could not name.
 */
public final class ClaimHandout {
  /** The variables the tenant.env file repeats for processes with a scrubbed environment. */
  private static final Set<String> TENANT_ENV_KEYS =
      Set.of(
          "SMSLICE_SOCKET",
          "SMSLICE_CLAIM",
          "SMSLICE_TOKEN",
          "CUDA_MPS_PIPE_DIRECTORY",
          "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
          "SMSLICE_GUARD",
          "SMSLICE_PRIORITY");

  /** The token's pod and container: one token serves every container of the claim. */
  static final String TOKEN_HOLDER = "dra";

  private final SliceAgent agent;
  private final Optional<TransparentTenants> transparent;
  private final DeviceNodes nodes;

  public ClaimHandout(
      SliceAgent agent, Optional<TransparentTenants> transparent, DeviceNodes nodes) {
    this.agent = agent;
    this.transparent = transparent;
    this.nodes = nodes;
  }

  /** Whether claims run unmodified programs when their SliceConfig does not say. */
  public boolean transparentByDefault() {
    return transparent.isPresent();
  }

  /** The edits of a claim the agent serves now; issues the claim's token. */
  ContainerEdits edits(PreparedClaim claim, DraGpu gpu) throws PrepareException {
    ClaimEndpoint endpoint =
        agent
            .endpoint(claim.namespace(), claim.name())
            .orElseThrow(
                () ->
                    PrepareException.of(
                        claim.namespace(),
                        claim.name(),
                        "is not served by the node agent; see the smslice node pod's log"));
    Map<String, String> env = new TreeMap<>();
    List<ContainerEdits.Mount> mounts = new ArrayList<>();
    List<ContainerEdits.DeviceNode> devices = new ArrayList<>();
    String token;
    try {
      token = agent.issueToken(claim.namespace(), claim.name(), claim.uid(), TOKEN_HOLDER);
    } catch (RuntimeException e) {
      throw PrepareException.of(
          claim.namespace(), claim.name(), "cannot get a token: " + e.getMessage());
    }
    mounts.add(
        new ContainerEdits.Mount(
            endpoint.directory().toString(), GreenSmResources.CONTAINER_CLAIM_DIR, false));
    env.put(
        "SMSLICE_SOCKET",
        GreenSmResources.CONTAINER_CLAIM_DIR + "/" + endpoint.socket().getFileName());
    env.put("SMSLICE_CLAIM", claim.key());
    env.put("SMSLICE_TOKEN", token);
    env.put("SMSLICE_GPU_UUID", claim.gpuUuid());
    env.put(
        "SMSLICE_SM_GROUPS",
        claim.groups().stream().map(String::valueOf).collect(Collectors.joining(",")));
    if (claim.transparent()) {
      TransparentTenants tenants =
          transparent.orElseThrow(
              () ->
                  PrepareException.of(
                      claim.namespace(),
                      claim.name(),
                      "asks for transparent: true, but transparent slices are off in this node's"
                          + " config (transparent.enabled): set transparent: false in its"
                          + " SliceConfig to use the client library only, or ask the cluster"
                          + " admin"));
      Optional<String> problem = tenants.interposer().problem();
      if (problem.isPresent()) {
        throw PrepareException.of(
            claim.namespace(), claim.name(), "cannot run unmodified programs: " + problem.get());
      }
      mounts.add(readOnly(tenants.interposer().library(), InterposerInstall.CONTAINER_LIBRARY));
      mounts.add(readOnly(tenants.interposer().preload(), TransparentTenants.CONTAINER_PRELOAD));
      mounts.add(
          new ContainerEdits.Mount(
              tenants.mps().pipeDirectory(gpu.uuid()).toString(),
              TransparentTenants.CONTAINER_PIPE_DIR,
              false));
      mounts.add(
          new ContainerEdits.Mount(
              tenants.shm().toString(), TransparentTenants.CONTAINER_SHM, false));
      env.put("LD_PRELOAD", InterposerInstall.CONTAINER_LIBRARY);
      env.put("CUDA_MPS_PIPE_DIRECTORY", TransparentTenants.CONTAINER_PIPE_DIR);
      env.put("NVIDIA_VISIBLE_DEVICES", gpu.uuid());
      env.put(
          "SMSLICE_GUARD",
          Agent.guardFile(Path.of(TransparentTenants.CONTAINER_SHM), gpu.uuid()).toString());
      env.put("SMSLICE_PRIORITY", claim.priority().name());
      if (claim.memoryBytes() > 0) {
        // MPS caps each client process's device memory; the container sees its GPU as device 0.
        long mib = (claim.memoryBytes() + (1L << 20) - 1) >> 20;
        env.put("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=" + mib + "M");
      }
      for (DeviceSpec d : nodes.forGpu(gpu.discovered().minorNumber())) {
        devices.add(
            new ContainerEdits.DeviceNode(
                d.getHostPath(), d.getContainerPath(), d.getPermissions()));
      }
      Map<String, String> kept = new TreeMap<>(env);
      kept.keySet().retainAll(TENANT_ENV_KEYS);
      Path file;
      try {
        file =
            agent.tenantEnvironment(
                claim.namespace(), claim.name(), claim.uid(), TOKEN_HOLDER, kept);
      } catch (RuntimeException e) {
        throw PrepareException.of(
            claim.namespace(),
            claim.name(),
            "cannot write the containers' tenant environment: " + e.getMessage());
      }
      mounts.add(readOnly(file, TenantEnvironmentFiles.CONTAINER_PATH));
    }
    return new ContainerEdits(env, mounts, devices);
  }

  private static ContainerEdits.Mount readOnly(Path host, String container) {
    return new ContainerEdits.Mount(host.toString(), container, true);
  }
}
