package io.smslice.operator.claim;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.inventory.NodeFacts;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The cluster as the claim controller's informers see it, and a fresh list of claims; claims served
 * through DRA are left out (the kube-scheduler places them, not the allocator).
 */
final class CachedClusterView implements ClusterView {
  private final io.fabric8.kubernetes.client.KubernetesClient client;
  private final IndexedResourceCache<SliceClaim> claims;
  private final InformerEventSource<SliceNode, SliceClaim> sliceNodes;
  private final InformerEventSource<Node, SliceClaim> nodes;
  private final SimpleInboundEventSource<SliceClaim> trigger;
  private final Set<String> toleratedTaints;
  private final java.util.function.Predicate<SliceClaim> servedByDra;

  CachedClusterView(
      io.fabric8.kubernetes.client.KubernetesClient client,
      IndexedResourceCache<SliceClaim> claims,
      InformerEventSource<SliceNode, SliceClaim> sliceNodes,
      InformerEventSource<Node, SliceClaim> nodes,
      SimpleInboundEventSource<SliceClaim> trigger,
      Set<String> toleratedTaints,
      java.util.function.Predicate<SliceClaim> servedByDra) {
    this.client = client;
    this.claims = claims;
    this.sliceNodes = sliceNodes;
    this.nodes = nodes;
    this.trigger = trigger;
    this.toleratedTaints = toleratedTaints;
    this.servedByDra = servedByDra;
  }

  @Override
  public Stream<SliceClaim> claims() {
    return claims.list().filter(servedByDra.negate());
  }

  @Override
  public java.util.List<SliceClaim> listClaims() {
    return client.resources(SliceClaim.class).inAnyNamespace().list().getItems().stream()
        .filter(servedByDra.negate())
        .toList();
  }

  @Override
  public Collection<SliceNode> sliceNodes() {
    return sliceNodes.list().toList();
  }

  @Override
  public Map<String, NodeFacts> nodes() {
    Map<String, NodeFacts> facts = new HashMap<>();
    nodes
        .list()
        .forEach(n -> facts.put(n.getMetadata().getName(), NodeFacts.of(n, toleratedTaints)));
    return facts;
  }

  @Override
  public void trigger(String claimKey) {
    int slash = claimKey.indexOf('/');
    trigger.propagateEvent(
        new ResourceID(claimKey.substring(slash + 1), claimKey.substring(0, slash)));
  }
}
