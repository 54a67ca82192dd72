package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.events.EventRecorder;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The smslice-scheduler: binds each pending pod of a claim to the claim's node once the claim is
 * Bound; until then the pod stays Pending with an event that says why. Only pods the webhook
 * labelled are watched.
 */
@ControllerConfiguration(
    name = PodSchedulerReconciler.NAME,
    informer = @Informer(labelSelector = SlicePods.MANAGED_LABEL + "=true"))
public class PodSchedulerReconciler implements Reconciler<Pod> {
  public static final String NAME = "smslice-scheduler";
  private static final String BY_CLAIM = "by-claim";

  private final PodBinder binder;
  private final EventRecorder events;
  private InformerEventSource<SliceClaim, Pod> claims;
  private InformerEventSource<SliceNode, Pod> sliceNodes;

  @Inject
  public PodSchedulerReconciler(KubernetesClient client, Clock clock) {
    this.binder = new PodBinder(client);
    this.events = new EventRecorder(client, clock);
  }

  @Override
  public List<EventSource<?, Pod>> prepareEventSources(EventSourceContext<Pod> ctx) {
    var pods = ctx.getPrimaryCache();
    pods.addIndexer(
        BY_CLAIM,
        pod ->
            SlicePods.claimName(pod)
                .map(c -> List.of(pod.getMetadata().getNamespace() + "/" + c))
                .orElse(List.of()));
    claims =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(SliceClaim.class, Pod.class)
                .withSecondaryToPrimaryMapper(
                    claim ->
                        pods
                            .byIndex(
                                BY_CLAIM,
                                claim.getMetadata().getNamespace()
                                    + "/"
                                    + claim.getMetadata().getName())
                            .stream()
                            .map(ResourceID::fromResource)
                            .collect(Collectors.toSet()))
                .build(),
            ctx);
    sliceNodes =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(SliceNode.class, Pod.class)
                .withSecondaryToPrimaryMapper(n -> java.util.Set.of())
                .build(),
            ctx);
    return List.of(claims, sliceNodes);
  }

  @Override
  public UpdateControl<Pod> reconcile(Pod pod, Context<Pod> ctx) {
    var spec = pod.getSpec();
    var claimName = SlicePods.claimName(pod);
    if (spec.getNodeName() != null
        || !SlicePods.SCHEDULER_NAME.equals(spec.getSchedulerName())
        || pod.getMetadata().getDeletionTimestamp() != null
        || claimName.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    String ns = pod.getMetadata().getNamespace();
    SliceClaim claim = claims.get(new ResourceID(claimName.get(), ns)).orElse(null);
    PodVerdict verdict =
        PodVerdict.of(
            pod, claimName.get(), claim, node -> sliceNodes.get(new ResourceID(node)).orElse(null));
    switch (verdict) {
      case PodVerdict.Bind b -> {
        binder.bind(pod, b.node());
        events.normal(
            pod,
            "Scheduled",
            "Successfully assigned "
                + ns
                + "/"
                + pod.getMetadata().getName()
                + " to "
                + b.node()
                + " (SliceClaim "
                + claimName.get()
                + ")");
      }
      case PodVerdict.Wait w -> events.warning(pod, w.reason(), w.message());
    }
    return UpdateControl.noUpdate();
  }
}
