package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.function.Function;

/** Where a pending pod of a claim goes, or why it waits. Pure: the scheduler acts on it. */
public sealed interface PodVerdict {
  record Bind(String node) implements PodVerdict {}

  record Wait(String reason, String message) implements PodVerdict {}

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
    var wanted = SlicePods.resourceFor(binding, sliceNodes.apply(binding.getNode()));
    int has = SlicePods.requested(pod, wanted.getKey());
    if (has != wanted.getValue()) {
      return new Wait(
          "ResourceRequestMismatch",
          "the pod requests "
              + has
              + " "
              + wanted.getKey()
              + " but SliceClaim "
              + ref
              + " is bound with "
              + wanted.getValue()
              + " (the pod was admitted before the claim was bound, or the claim was resized):"
              + " delete the pod so that it is created again");
    }
    return new Bind(binding.getNode());
  }
}
