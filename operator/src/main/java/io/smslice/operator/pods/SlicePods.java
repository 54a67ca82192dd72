package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.Map;
import java.util.Optional;

/** Names and rules shared by the pod webhook and the pod scheduler. */
public final class SlicePods {
  public static final String SCHEDULER_NAME = "smslice-scheduler";

  /** Set by the webhook so that the scheduler watches only these pods. */
  public static final String MANAGED_LABEL = SmsliceApi.GROUP + "/claim-pod";

  public static final String SM_RESOURCE = SmsliceApi.GROUP + "/sm";
  public static final String MIG_RESOURCE = SmsliceApi.GROUP + "/mig";
  public static final String MPS_RESOURCE = SmsliceApi.GROUP + "/mps";

  private SlicePods() {}

  public static Optional<String> claimName(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    String name = annotations == null ? null : annotations.get(SmsliceApi.CLAIM_ANNOTATION);
    return name == null || name.isBlank() ? Optional.empty() : Optional.of(name.trim());
  }

  /**
   * The extended resource (name and count) a pod of a claim with this binding requests: one
   * smslice.io/sm per bound SM, one smslice.io/mig, or smslice.io/mps percent of the GPU's SMs.
   */
  public static Map.Entry<String, Integer> resourceFor(Binding b, SliceNode node) {
    return switch (b.getMode()) {
      case Green -> Map.entry(SM_RESOURCE, b.getSms());
      case MIG -> Map.entry(MIG_RESOURCE, 1);
      case MPS -> Map.entry(MPS_RESOURCE, mpsPercent(b, node));
      case Off -> throw new IllegalArgumentException("a binding cannot be in mode Off");
    };
  }

  private static int mpsPercent(Binding b, SliceNode node) {
    int smCount =
        node == null || node.getStatus() == null
            ? 0
            : node.getStatus().getGpus().stream()
                .filter(g -> g.getUuid().equals(b.getGpuUuid()))
                .mapToInt(NodeGpu::getSmCount)
                .findFirst()
                .orElse(0);
    if (smCount == 0) {
      throw new IllegalStateException(
          "GPU " + b.getGpuUuid() + " of node " + b.getNode() + " is not in its SliceNode");
    }
    return (int) Math.ceilDiv(100L * b.getSms(), smCount);
  }

  /** What the pod's containers request of {@code resource}, summed. */
  public static int requested(Pod pod, String resource) {
    int total = 0;
    for (Container c : pod.getSpec().getContainers()) {
      var req = c.getResources() == null ? null : c.getResources().getRequests();
      Quantity q = req == null ? null : req.get(resource);
      if (q != null) {
        total += q.getNumericalAmount().intValue();
      }
    }
    return total;
  }
}
