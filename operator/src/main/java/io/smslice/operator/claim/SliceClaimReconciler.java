package io.smslice.operator.claim;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.config.Allocation;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.dra.DraApi;
import io.smslice.operator.dra.DraSliceClaims;
import io.smslice.operator.dra.ResourceClaimSpecs;
import io.smslice.operator.events.EventRecorder;
import io.smslice.operator.metrics.SliceMetrics;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reconciles SliceClaims: asks the allocator for the claim's slice, then records the outcome
 * (status, node label, events). Deleting a claim frees its slice before the finalizer goes. With
 * allocation dra, green claims are not placed here: each gets a ResourceClaim the kube-scheduler
 * allocates (DraSliceClaims), and its status follows that claim; MIG and MPS claims are placed as
 * before.
 */
@ControllerConfiguration(
    name = SliceClaimReconciler.NAME,
    finalizerName = SmsliceApi.CLAIM_FINALIZER)
public class SliceClaimReconciler implements Reconciler<SliceClaim>, Cleaner<SliceClaim> {
  public static final String NAME = "sliceclaim";

  private final SliceAllocator allocator;
  private final SliceMetrics metrics;
  private final KubernetesClient client;
  private final Clock clock;
  private final EventRecorder events;
  private final OperatorConfig config;
  private final DraSliceClaims dra;
  private InformerEventSource<SliceNode, SliceClaim> sliceNodes;

  @Inject
  public SliceClaimReconciler(
      SliceAllocator allocator,
      SliceMetrics metrics,
      KubernetesClient client,
      Clock clock,
      OperatorConfig config) {
    this.allocator = allocator;
    this.config = config;
    this.metrics = metrics;
    this.client = client;
    this.clock = clock;
    this.events = new EventRecorder(client, clock);
    this.dra =
        Allocation.of(config) == Allocation.DRA ? new DraSliceClaims(client, events, clock) : null;
  }

  /** Whether this claim is served through DRA (allocation dra and a green claim). */
  private boolean servedByDra(SliceClaim claim) {
    return dra != null && ResourceClaimSpecs.servedByDra(claim.getSpec());
  }

  @Override
  public List<EventSource<?, SliceClaim>> prepareEventSources(EventSourceContext<SliceClaim> ctx) {
    // Node-side changes reach claims through the allocator (it re-reads the inventory and nudges
    // the claims that lost or may now get a slice), so the mappers only hook that in.
    sliceNodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(SliceNode.class, SliceClaim.class)
                .withSecondaryToPrimaryMapper(this::servedClaims)
                .build(),
            ctx);
    InformerEventSource<Node, SliceClaim> nodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, SliceClaim.class)
                .withSecondaryToPrimaryMapper(n -> inventoryChanged())
                .build(),
            ctx);
    SimpleInboundEventSource<SliceClaim> trigger = new SimpleInboundEventSource<>("claim-trigger");
    allocator.attach(
        new CachedClusterView(
            client,
            ctx.getPrimaryCache(),
            sliceNodes,
            nodes,
            trigger,
            config.toleratedTaints(),
            this::servedByDra),
        new NodeLedger(client, config.leaseNamespace().orElseGet(client::getNamespace)));
    if (dra == null) {
      return List.of(sliceNodes, nodes, trigger);
    }
    // Same name, same namespace: a foreign ResourceClaim that takes the name reaches its
    // SliceClaim too (which then says so).
    InformerEventSource<GenericKubernetesResource, SliceClaim> resourceClaims =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(DraApi.RESOURCE_CLAIM_GVK, SliceClaim.class)
                .withSecondaryToPrimaryMapper(rc -> Set.of(ResourceID.fromResource(rc)))
                .build(),
            ctx);
    return List.of(sliceNodes, nodes, trigger, resourceClaims);
  }

  /** A SliceNode's change may change its inventory and how it serves each of its claims. */
  private Set<ResourceID> servedClaims(SliceNode sn) {
    inventoryChanged();
    if (sn.getStatus() == null || sn.getStatus().getClaims() == null) {
      return Set.of();
    }
    return sn.getStatus().getClaims().stream()
        .map(c -> new ResourceID(c.getName(), c.getNamespace()))
        .collect(java.util.stream.Collectors.toSet());
  }

  private Set<ResourceID> inventoryChanged() {
    allocator.inventoryChanged();
    return Set.of();
  }

  @Override
  public UpdateControl<SliceClaim> reconcile(SliceClaim claim, Context<SliceClaim> ctx) {
    if (servedByDra(claim)) {
      SliceClaimStatus next = dra.sync(claim);
      if (claim.getStatus() == null || !ClaimStatuses.same(next, claim.getStatus())) {
        writeStatus(claim, claim.getMetadata().getResourceVersion(), next);
      }
      metrics.phase(ClaimRequests.key(claim), next.getPhase());
      return UpdateControl.noUpdate();
    }
    long start = System.nanoTime();
    Outcome o = allocator.decide(claim);
    metrics.placement(Duration.ofNanos(System.nanoTime() - start));
    var now = clock.instant();
    SliceClaimStatus old = claim.getStatus();
    var served = served(claim, o);
    String version = claim.getMetadata().getResourceVersion();
    try {
      if (o.resize() != null) {
        version = writeStatus(claim, version, ClaimStatuses.resizing(claim, o, served, now));
      }
      SliceClaimStatus next = ClaimStatuses.next(claim, o, served, now);
      if (old == null || !ClaimStatuses.same(next, old)) {
        writeStatus(claim, version, next);
        announce(claim, old, o);
      }
    } catch (KubernetesClientException e) {
      // Written from a claim that changed meanwhile (409), or not at all: hold nothing the API
      // does not show, and decide again from the claim as it is now.
      allocator.undo(claim);
      throw e;
    }
    allocator.confirmed(claim);
    label(claim, o.placement() == null ? null : o.placement().node());
    metrics.phase(ClaimRequests.key(claim), o.phase());
    return UpdateControl.noUpdate();
  }

  private java.util.Optional<io.smslice.api.v1alpha1.node.ServedClaim> served(
      SliceClaim claim, Outcome o) {
    if (o.placement() == null) {
      return java.util.Optional.empty();
    }
    return Served.of(sliceNodes.list().toList(), o.placement().node(), ClaimRequests.key(claim))
        .filter(c -> o.placement().gpuUuid().equals(c.getGpuUuid()));
  }

  @Override
  public DeleteControl cleanup(SliceClaim claim, Context<SliceClaim> ctx) {
    if (!servedByDra(claim)) {
      allocator.release(claim);
    }
    try {
      writeStatus(claim, null, ClaimStatuses.released(claim, clock.instant()));
    } catch (KubernetesClientException e) {
      // Already gone or not writable any more: the slice is freed either way.
    }
    events.normal(claim, "Released", "slice freed");
    metrics.forget(ClaimRequests.key(claim));
    return DeleteControl.defaultDelete();
  }

  /**
   * Writes the status if the claim is still at {@code resourceVersion} (the version the decision
   * was made from; null: whatever it is now). Returns the new version.
   */
  private String writeStatus(SliceClaim claim, String resourceVersion, SliceClaimStatus status) {
    SliceClaim copy = new SliceClaim();
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withName(claim.getMetadata().getName())
            .withNamespace(claim.getMetadata().getNamespace())
            .withResourceVersion(resourceVersion)
            .build());
    copy.setSpec(claim.getSpec());
    copy.setStatus(status);
    return client
        .resources(SliceClaim.class)
        .resource(copy)
        .updateStatus()
        .getMetadata()
        .getResourceVersion();
  }

  private void label(SliceClaim claim, String node) {
    Map<String, String> labels = claim.getMetadata().getLabels();
    String current = labels == null ? null : labels.get(SmsliceApi.NODE_LABEL);
    if (Objects.equals(current, node)) {
      return;
    }
    Map<String, Object> change = new HashMap<>();
    change.put(SmsliceApi.NODE_LABEL, node);
    String patch = Serialization.asJson(Map.of("metadata", Map.of("labels", change)));
    client
        .resources(SliceClaim.class)
        .inNamespace(claim.getMetadata().getNamespace())
        .withName(claim.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  private void announce(SliceClaim claim, SliceClaimStatus old, Outcome o) {
    Phase before = old == null ? null : old.getPhase();
    if (o.resize() != null) {
      events.normal(claim, "Resized", o.message());
    }
    if (o.resizeRejected() != null) {
      events.warning(claim, "ResizeRejected", o.resizeRejected().message());
    }
    if (before == o.phase() && o.resize() == null && o.reason().equals(placedReason(old))) {
      return;
    }
    switch (o.phase()) {
      case Bound -> events.normal(claim, o.reason(), o.message());
      case Pending, Failed -> events.warning(claim, o.reason(), o.message());
      default -> {}
    }
  }

  private static String placedReason(SliceClaimStatus old) {
    if (old == null || old.getConditions() == null) {
      return null;
    }
    return old.getConditions().stream()
        .filter(c -> ClaimStatuses.PLACED.equals(c.getType()))
        .map(io.smslice.api.v1alpha1.Condition::getReason)
        .findFirst()
        .orElse(null);
  }
}
