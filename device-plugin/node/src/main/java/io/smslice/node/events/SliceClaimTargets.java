package io.smslice.node.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.node.allocation.ClusterView;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Device-plugin clusters: the SliceClaim and the pods on this node that name it. */
public final class SliceClaimTargets implements ClaimTargets {
  private final ClusterView cluster;
  private final String nodeName;

  public SliceClaimTargets(ClusterView cluster, String nodeName) {
    this.cluster = cluster;
    this.nodeName = nodeName;
  }

  @Override
  public Map<String, ObjectReference> of(String namespace, String name) {
    Map<String, ObjectReference> targets = new LinkedHashMap<>();
    Optional<SliceClaim> bound = cluster.claim(namespace, name);
    targets.put(
        "claim " + namespace + "/" + name,
        WarningEvents.claimRef(
            namespace, name, bound.map(c -> c.getMetadata().getUid()).orElse(null)));
    for (Pod pod : cluster.podsOnNode(nodeName)) {
      Map<String, String> a = pod.getMetadata().getAnnotations();
      if (namespace.equals(pod.getMetadata().getNamespace())
          && a != null
          && name.equals(a.get(SmsliceApi.CLAIM_ANNOTATION))
          && !WarningEvents.terminated(pod)) {
        targets.put(
            "pod " + namespace + "/" + pod.getMetadata().getName(), WarningEvents.podRef(pod));
      }
    }
    return targets;
  }
}
