package io.smslice.node.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.util.List;
import java.util.Optional;

/**
 * Reads pods and claims straight from the API server at Allocate time. Allocate is rare and must
 * see a pod the moment the kubelet does, so a fresh read beats a possibly stale informer cache.
 */
public final class KubernetesClusterView implements ClusterView {
  private final KubernetesClient client;

  public KubernetesClusterView(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public List<Pod> podsOnNode(String nodeName) {
    return client
        .pods()
        .inAnyNamespace()
        .withField("spec.nodeName", nodeName)
        .list()
        .getItems()
        .stream()
        .filter(p -> nodeName.equals(p.getSpec().getNodeName()))
        .toList();
  }

  @Override
  public Optional<SliceClaim> claim(String namespace, String name) {
    return Optional.ofNullable(
        client.resources(SliceClaim.class).inNamespace(namespace).withName(name).get());
  }
}
