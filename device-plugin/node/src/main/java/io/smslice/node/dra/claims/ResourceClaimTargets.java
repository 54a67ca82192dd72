package io.smslice.node.dra.claims;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.events.ClaimTargets;
import io.smslice.node.events.WarningEvents;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * DRA clusters: the ResourceClaim (the agent serves it under its own name) and the pods on this
 * node that use it, by name in their spec or, for a claim made from a template, in their status.
 */
public final class ResourceClaimTargets implements ClaimTargets {
  private final ResourceClaimApi claims;
  private final ClusterView cluster;
  private final String nodeName;

  public ResourceClaimTargets(ResourceClaimApi claims, ClusterView cluster, String nodeName) {
    this.claims = claims;
    this.cluster = cluster;
    this.nodeName = nodeName;
  }

  @Override
  public Map<String, ObjectReference> of(String namespace, String name) {
    Map<String, ObjectReference> targets = new LinkedHashMap<>();
    String uid =
        claims
            .get(namespace, name)
            .map(c -> c.path("metadata").path("uid").asText(null))
            .orElse(null);
    targets.put(
        "claim " + namespace + "/" + name, ResourceClaimApi.reference(namespace, name, uid));
    for (Pod pod : cluster.podsOnNode(nodeName)) {
      if (namespace.equals(pod.getMetadata().getNamespace())
          && uses(pod, name)
          && !WarningEvents.terminated(pod)) {
        targets.put(
            "pod " + namespace + "/" + pod.getMetadata().getName(), WarningEvents.podRef(pod));
      }
    }
    return targets;
  }

  private static boolean uses(Pod pod, String claim) {
    Stream<String> named =
        pod.getSpec() == null || pod.getSpec().getResourceClaims() == null
            ? Stream.empty()
            : pod.getSpec().getResourceClaims().stream().map(r -> r.getResourceClaimName());
    Stream<String> made =
        pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null
            ? Stream.empty()
            : pod.getStatus().getResourceClaimStatuses().stream()
                .map(r -> r.getResourceClaimName());
    return Stream.concat(named, made).filter(Objects::nonNull).anyMatch(claim::equals);
  }
}
