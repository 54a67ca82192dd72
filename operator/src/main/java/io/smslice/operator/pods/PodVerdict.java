package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.function.Function;

/** What happens to a gated pod of a claim. Pure: the claim-gate controller acts on it. */
public sealed interface PodVerdict {
  /** Pin the pod to the claim's node and lift the gate; the kube-scheduler does the rest. */
  record Release(String node) implements PodVerdict {}

  record Wait(String reason, String message) implements PodVerdict {}

  /** The pod's resource request cannot match the binding; its controller makes a new one. */
  record Recreate(String message) implements PodVerdict {}

  static PodVerdict of(
      Pod pod, String claimName, SliceClaim claim, Function<String, SliceNode> sliceNodes) {
    String ref = pod.getMetadata().getNamespace() + "/" + claimName;
    if (claim == null) {
      return new Wait(
          "ClaimNotFound", "SliceClaim " + ref + " does not exist; the pod waits until it does");
    }
    var status = claim.getStatus();
    if (status != null && status.getPhase() == Phase.Failed) {
      return new Wait("ClaimFailed", "SliceClaim " + ref + " failed: " + status.getMessage());
    }
    if (status == null || status.getBinding() == null || status.getPhase() != Phase.Bound) {
      String why = status == null || status.getMessage() == null ? "" : ": " + status.getMessage();
      return new Wait("ClaimNotBound", "waiting for SliceClaim " + ref + " to be Bound" + why);
    }
    var binding = status.getBinding();
    SliceNode node = sliceNodes.apply(binding.getNode());
    if (!SlicePods.matches(pod, claim, node)) {
      var wanted = SlicePods.resourceFor(binding, node);
      String message =
          "the pod requests "
              + SlicePods.requested(pod, wanted.getKey())
              + " "
              + wanted.getKey()
              + " but SliceClaim "
              + ref
              + " is bound with "
              + wanted.getValue()
              + " (the pod was admitted before the claim's binding fixed its resource, or the"
              + " claim was resized)";
      return owned(pod)
          ? new Recreate(message + ": deleted so that its controller creates it again")
          : new Wait("ResourceRequestMismatch", message + ": delete the pod and create it again");
    }
    return new Release(binding.getNode());
  }

  private static boolean owned(Pod pod) {
    var owners = pod.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
  }
}
