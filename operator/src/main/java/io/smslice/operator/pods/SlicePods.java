package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.util.Map;
import java.util.Optional;

/** Names and rules shared by the pod webhook and the claim-gate controller. */
public final class SlicePods {
  /** Set by the webhook: the kube-scheduler leaves the pod alone until the operator lifts it. */
  public static final String GATE = SmsliceApi.GROUP + "/claim-bound";

  /** Set by the webhook so that the operator watches only these pods. */
  public static final String MANAGED_LABEL = SmsliceApi.GROUP + "/claim-pod";

  /** Pod annotation naming a SliceClaimTemplate: the pod gets its own claim made from it. */
  public static final String TEMPLATE_ANNOTATION = SmsliceApi.GROUP + "/claim-template";

  /** Pod annotation naming the container that gets the slice (default: see {@link #target}). */
  public static final String CONTAINER_ANNOTATION = SmsliceApi.GROUP + "/container";

  /** kubectl's own choice of a pod's main container; used when ours is absent. */
  public static final String DEFAULT_CONTAINER_ANNOTATION =
      "kubectl.kubernetes.io/default-container";

  private static final java.util.regex.Pattern DNS_1123_SUBDOMAIN =
      java.util.regex.Pattern.compile(
          "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public static final String SM_RESOURCE = SmsliceApi.GROUP + "/sm";
  public static final String MIG_RESOURCE = SmsliceApi.GROUP + "/mig";
  public static final String MPS_RESOURCE = SmsliceApi.GROUP + "/mps";

  private SlicePods() {}

  public static Optional<String> claimName(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    String name = annotations == null ? null : annotations.get(SmsliceApi.CLAIM_ANNOTATION);
    return name == null || invalidClaimName(name) != null ? Optional.empty() : Optional.of(name);
  }

  /** Why {@code name} cannot name a SliceClaim (an object name: a DNS-1123 subdomain), or null. */
  public static String invalidClaimName(String name) {
    if (name.isEmpty()) {
      return "is empty";
    }
    if (name.length() > 253) {
      return "is longer than 253 characters";
    }
    if (!DNS_1123_SUBDOMAIN.matcher(name).matches()) {
      return "is not a valid object name (lower-case letters, digits, '-' and '.', starting and"
          + " ending with a letter or digit, no spaces)";
    }
    return null;
  }

  /**
   * The index of the container that gets the slice: the one {@code smslice.io/container} names,
   * else the one {@code kubectl.kubernetes.io/default-container} names, else the first. An
   * annotation naming no container of the pod is an error (a typo must not give the slice to a
   * sidecar).
   */
  public static int target(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    var containers = pod.getSpec().getContainers();
    for (String key : java.util.List.of(CONTAINER_ANNOTATION, DEFAULT_CONTAINER_ANNOTATION)) {
      String wanted = annotations == null ? null : annotations.get(key);
      if (wanted == null) {
        continue;
      }
      for (int i = 0; i < containers.size(); i++) {
        if (wanted.equals(containers.get(i).getName())) {
          return i;
        }
      }
      throw new IllegalArgumentException(
          "annotation "
              + key
              + " names container '"
              + wanted
              + "', which the pod does not have (it has "
              + containers.stream().map(Container::getName).toList()
              + ")");
    }
    return 0;
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

  /**
   * The resource a pod of a claim that is not Bound yet requests, when the claim's isolation
   * already fixes it: Compute is a green slice of {@code spec.sms} SMs (the binding may round up;
   * see {@link #matches}), Memory one MIG instance. Auto and Shared depend on the GPU chosen:
   * empty.
   */
  public static Optional<Map.Entry<String, Integer>> resourceBeforeBinding(SliceClaimSpec spec) {
    if (spec == null || spec.getIsolation() == null) {
      return Optional.empty();
    }
    return switch (spec.getIsolation()) {
      case Compute ->
          spec.getSms() == null
              ? Optional.empty()
              : Optional.of(Map.entry(SM_RESOURCE, spec.getSms()));
      case Memory -> Optional.of(Map.entry(MIG_RESOURCE, 1));
      case Shared, Auto -> Optional.empty();
    };
  }

  /**
   * Whether a pod's request fits its claim's binding: exactly the bound resource, or, for a green
   * slice, the claim's {@code spec.sms} that the webhook set before the claim was Bound.
   */
  public static boolean matches(Pod pod, SliceClaim claim, SliceNode node) {
    var wanted = resourceFor(claim.getStatus().getBinding(), node);
    int has = requested(pod, wanted.getKey());
    if (has == wanted.getValue()) {
      return true;
    }
    return wanted.getKey().equals(SM_RESOURCE)
        && claim.getSpec() != null
        && claim.getSpec().getSms() != null
        && has == claim.getSpec().getSms();
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
