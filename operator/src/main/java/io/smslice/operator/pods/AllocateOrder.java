package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kubelet's Allocate call names no pod: the node side infers it from the pods on its node that
 * request that many of the resource. Two such pods waiting for the kubelet at once are told apart
 * only by creation time, which has one-second resolution, and the kubelet may admit them in either
 * order; each could then start with the other's slice. So pods with the same request on one node
 * are released one after another: the next one waits until the kubelet has admitted the last (its
 * status lists containers, or it left Pending). A pod the scheduler reported unschedulable does not
 * hold the others up: it is not about to reach the kubelet.
 */
final class AllocateOrder {
  private AllocateOrder() {}

  /**
   * A released pod, other than {@code self}, pinned to {@code node} with the same request, that its
   * kubelet has not admitted yet.
   */
  static Optional<Pod> ahead(
      Pod self, String node, Map.Entry<String, Integer> request, List<Pod> claimPods) {
    return claimPods.stream()
        .filter(p -> !same(p, self))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> !NodePin.gated(p.getSpec()))
        .filter(p -> node.equals(p.getSpec().getNodeName()) || NodePin.pinnedTo(p.getSpec(), node))
        .filter(p -> SlicePods.requested(p, request.getKey()) == request.getValue())
        .filter(AllocateOrder::awaitingKubelet)
        .findFirst();
  }

  private static boolean same(Pod a, Pod b) {
    return a.getMetadata().getNamespace().equals(b.getMetadata().getNamespace())
        && a.getMetadata().getName().equals(b.getMetadata().getName());
  }

  private static boolean awaitingKubelet(Pod p) {
    var status = p.getStatus();
    if (status == null) {
      return true;
    }
    if (status.getPhase() != null && !"Pending".equals(status.getPhase())) {
      return false;
    }
    if (status.getContainerStatuses() != null && !status.getContainerStatuses().isEmpty()) {
      return false;
    }
    return p.getSpec().getNodeName() != null || !unschedulable(status.getConditions());
  }

  /**
   * The scheduler found no node for it. Not any PodScheduled=False: a pod keeps the one with reason
   * SchedulingGated after its gate is lifted, until the scheduler binds it.
   */
  private static boolean unschedulable(List<PodCondition> conditions) {
    return conditions != null
        && conditions.stream()
            .anyMatch(
                c ->
                    "PodScheduled".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && "Unschedulable".equals(c.getReason()));
  }
}
