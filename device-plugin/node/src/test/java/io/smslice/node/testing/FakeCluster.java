package io.smslice.node.testing;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.allocation.ClusterView;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** Pods and claims held in memory, with builders for the shapes the tests need. */
public final class FakeCluster implements ClusterView {
  private final Map<String, Pod> pods = new ConcurrentHashMap<>();
  private final Map<String, SliceClaim> claims = new ConcurrentHashMap<>();

  @Override
  public List<Pod> podsOnNode(String nodeName) {
    return pods.values().stream().filter(p -> nodeName.equals(p.getSpec().getNodeName())).toList();
  }

  @Override
  public Optional<SliceClaim> claim(String namespace, String name) {
    return Optional.ofNullable(claims.get(namespace + "/" + name));
  }

  public Pod addPod(Pod pod) {
    pods.put(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), pod);
    return pod;
  }

  public SliceClaim addClaim(SliceClaim claim) {
    claims.put(claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName(), claim);
    return claim;
  }

  /**
   * A pending pod on {@code node} whose one container asks for {@code count} of {@code resource}.
   */
  public static Pod pod(
      String ns,
      String name,
      String node,
      String claim,
      String resource,
      int count,
      String created) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .withCreationTimestamp(created)
        .withAnnotations(claim == null ? Map.of() : Map.of(SmsliceApi.CLAIM_ANNOTATION, claim))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withContainers(
            new ContainerBuilder()
                .withName("main")
                .withNewResources()
                .withLimits(Map.of(resource, new Quantity(Integer.toString(count))))
                .endResources()
                .build())
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  /** A claim bound to {@code node}. */
  public static SliceClaim boundClaim(
      String ns,
      String name,
      String node,
      String gpuUuid,
      GpuMode mode,
      Integer sms,
      String memory,
      String migUuid) {
    SliceClaim c = new SliceClaim();
    c.getMetadata().setNamespace(ns);
    c.getMetadata().setName(name);
    SliceClaimSpec spec = new SliceClaimSpec();
    spec.setSms(sms);
    spec.setMemory(memory == null ? null : new Quantity(memory));
    spec.setIsolation(
        switch (mode) {
          case Green -> Isolation.Compute;
          case MIG -> Isolation.Memory;
          default -> Isolation.Shared;
        });
    c.setSpec(spec);
    Binding b = new Binding();
    b.setNode(node);
    b.setGpuUuid(gpuUuid);
    b.setMode(mode);
    b.setSms(sms);
    b.setMigDeviceUuid(migUuid);
    SliceClaimStatus status = new SliceClaimStatus();
    status.setPhase(Phase.Bound);
    status.setBinding(b);
    c.setStatus(status);
    return c;
  }
}
