package io.smslice.operator.claim;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/** The cluster as the claim controller's informers see it. */
final class CachedClusterView implements ClusterView {
  private final IndexedResourceCache<SliceClaim> claims;
  private final InformerEventSource<SliceNode, SliceClaim> sliceNodes;
  private final InformerEventSource<Node, SliceClaim> nodes;
  private final SimpleInboundEventSource<SliceClaim> trigger;

  CachedClusterView(
      IndexedResourceCache<SliceClaim> claims,
      InformerEventSource<SliceNode, SliceClaim> sliceNodes,
      InformerEventSource<Node, SliceClaim> nodes,
      SimpleInboundEventSource<SliceClaim> trigger) {
    this.claims = claims;
    this.sliceNodes = sliceNodes;
    this.nodes = nodes;
    this.trigger = trigger;
  }

  @Override
  public Stream<SliceClaim> claims() {
    return claims.list();
  }

  @Override
  public Collection<SliceNode> sliceNodes() {
    return sliceNodes.list().toList();
  }

  @Override
  public Map<String, Map<String, String>> nodeLabels() {
    Map<String, Map<String, String>> labels = new HashMap<>();
    nodes
        .list()
        .forEach(
            n ->
                labels.put(
                    n.getMetadata().getName(),
                    n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels()));
    return labels;
  }

  @Override
  public void trigger(String claimKey) {
    int slash = claimKey.indexOf('/');
    trigger.propagateEvent(
        new ResourceID(claimKey.substring(slash + 1), claimKey.substring(0, slash)));
  }
}
