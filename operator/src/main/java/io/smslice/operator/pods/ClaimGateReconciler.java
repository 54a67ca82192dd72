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
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.events.EventRecorder;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Releases gated pods of claims: once a pod's claim is Bound, pins the pod to the claim's node and
 * lifts the scheduling gate the webhook set; the kube-scheduler then checks fit, taints and
 * affinity and binds it, as for any pod. A claim named by pods directly serves one pod at a time: a
 * second pod stays gated, with an event that says why, until the first one finishes or goes. Only
 * pods the webhook labelled are watched.
 */
@ControllerConfiguration(
    name = ClaimGateReconciler.NAME,
    informer = @Informer(labelSelector = SlicePods.MANAGED_LABEL + "=true"))
public class ClaimGateReconciler implements Reconciler<Pod> {
  public static final String NAME = "claim-gate";
  private static final String BY_CLAIM = "by-claim";

  /** A pod's end is not an event of the pods waiting behind it: they look again this often. */
  private static final java.time.Duration HOLDER_RECHECK = java.time.Duration.ofSeconds(5);

  /** Kubelets admit a released pod within seconds; the next pod of its kind looks again soon. */
  private static final java.time.Duration ALLOCATE_RECHECK = java.time.Duration.ofSeconds(1);

  /** How often a pod that waits for its per-pod claim looks again. */
  private static final java.time.Duration PER_POD_RECHECK = java.time.Duration.ofSeconds(2);

  private final KubernetesClient client;
  private final EventRecorder events;
  private final PerPodClaims perPodClaims;
  private InformerEventSource<SliceClaim, Pod> claims;
  private InformerEventSource<SliceNode, Pod> sliceNodes;

  @Inject
  public ClaimGateReconciler(KubernetesClient client, Clock clock) {
    this.client = client;
    this.events = new EventRecorder(client, clock);
    this.perPodClaims = new PerPodClaims(client);
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

  /**
   * Serialised: two pods of one claim reconciled at once must not both be released. The holder
   * check reads the API, not the cache, so a release made a moment ago is seen.
   */
  @Override
  public synchronized UpdateControl<Pod> reconcile(Pod pod, Context<Pod> ctx) {
    if (!NodePin.gated(pod.getSpec()) || pod.getMetadata().getDeletionTimestamp() != null) {
      return UpdateControl.noUpdate();
    }
    var claimName = SlicePods.claimName(pod);
    String template = annotation(pod, SlicePods.TEMPLATE_ANNOTATION);
    if (claimName.isEmpty() && template != null) {
      Optional<PodVerdict.Wait> waiting = perPodClaims.ensure(pod, template);
      if (waiting.isEmpty()) {
        return UpdateControl.noUpdate(); // the annotation's change brings the pod back
      }
      events.warning(pod, waiting.get().reason(), waiting.get().message());
      // Neither a template made later nor a predecessor's claim going is an event of this pod.
      return UpdateControl.<Pod>noUpdate().rescheduleAfter(PER_POD_RECHECK);
    }
    if (claimName.isEmpty()) {
      return UpdateControl.noUpdate();
    }
    String ns = pod.getMetadata().getNamespace();
    SliceClaim claim = claims.get(new ResourceID(claimName.get(), ns)).orElse(null);
    PodVerdict verdict = PodVerdict.of(pod, claimName.get(), claim, this::nodeOf);
    switch (verdict) {
      case PodVerdict.Release r -> {
        List<Pod> claimPods = claimPods();
        Optional<Pod> holder = holder(claimPods, ns, claimName.get(), pod);
        if (holder.isPresent()) {
          events.warning(
              pod,
              "ClaimInUse",
              "SliceClaim "
                  + ns
                  + "/"
                  + claimName.get()
                  + " already serves pod "
                  + holder.get().getMetadata().getName()
                  + "; a claim serves one pod at a time, so this pod waits until that one"
                  + " finishes or is deleted. Pods of a Deployment, StatefulSet or Job need one"
                  + " claim each: name a SliceClaimTemplate with the annotation "
                  + SlicePods.TEMPLATE_ANNOTATION
                  + " instead (docs/operator.md, 'One claim per pod')");
          return UpdateControl.<Pod>noUpdate().rescheduleAfter(HOLDER_RECHECK);
        }
        // What the pod itself requests: the binding may have rounded a green slice up.
        String resource =
            SlicePods.resourceFor(claim.getStatus().getBinding(), nodeOf(r.node())).getKey();
        int count = SlicePods.requested(pod, resource);
        Optional<Pod> ahead =
            AllocateOrder.ahead(pod, r.node(), Map.entry(resource, count), claimPods);
        if (ahead.isPresent()) {
          events.normal(
              pod,
              "AwaitingAllocateOrder",
              "pod "
                  + ahead.get().getMetadata().getNamespace()
                  + "/"
                  + ahead.get().getMetadata().getName()
                  + " requests the same "
                  + count
                  + " "
                  + resource
                  + " on node "
                  + r.node()
                  + " and its kubelet has not admitted it yet; the device plugin tells such"
                  + " pods apart only by order, so this one is released after it");
          return UpdateControl.<Pod>noUpdate().rescheduleAfter(ALLOCATE_RECHECK);
        }
        client
            .pods()
            .inNamespace(ns)
            .withName(pod.getMetadata().getName())
            .edit(
                p -> {
                  NodePin.apply(p.getSpec(), r.node());
                  return p;
                });
        events.normal(
            pod,
            "ClaimBound",
            "SliceClaim "
                + claimName.get()
                + " is Bound on node "
                + r.node()
                + ": the pod is pinned there and its scheduling gate lifted");
      }
      case PodVerdict.Recreate r -> {
        client.pods().inNamespace(ns).withName(pod.getMetadata().getName()).delete();
        events.normal(
            claim, "PodRecreated", "pod " + pod.getMetadata().getName() + ": " + r.message());
      }
      case PodVerdict.Wait w -> events.warning(pod, w.reason(), w.message());
    }
    return UpdateControl.noUpdate();
  }

  private SliceNode nodeOf(String node) {
    return sliceNodes.get(new ResourceID(node)).orElse(null);
  }

  /** Every claim pod of the cluster, from the API: a release made a moment ago must be seen. */
  private List<Pod> claimPods() {
    return client
        .pods()
        .inAnyNamespace()
        .withLabel(SlicePods.MANAGED_LABEL, "true")
        .list()
        .getItems();
  }

  /** Another pod the claim serves now: released from the gate, not finished, not deleting. */
  private static Optional<Pod> holder(List<Pod> claimPods, String ns, String claimName, Pod self) {
    return claimPods.stream()
        .filter(p -> ns.equals(p.getMetadata().getNamespace()))
        .filter(p -> !p.getMetadata().getUid().equals(self.getMetadata().getUid()))
        .filter(p -> claimName.equals(annotation(p, SmsliceApi.CLAIM_ANNOTATION)))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> !NodePin.gated(p.getSpec()))
        .filter(p -> !finished(p))
        .findFirst();
  }

  private static String annotation(Pod p, String key) {
    var a = p.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static boolean finished(Pod p) {
    String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }
}
