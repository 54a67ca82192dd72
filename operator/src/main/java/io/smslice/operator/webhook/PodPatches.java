package io.smslice.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.pods.SlicePods;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON Patch (RFC 6902) that makes a pod of a claim schedulable by smslice: our scheduler name,
 * the label the scheduler watches, and, once the claim is Bound, the extended resource on the first
 * container (requests and limits, which must be equal for extended resources).
 */
public final class PodPatches {
  private PodPatches() {}

  public static List<Map<String, Object>> forPod(Pod pod, SliceClaim claim, SliceNode node) {
    List<Map<String, Object>> ops = new ArrayList<>();
    ops.add(op("add", "/spec/schedulerName", SlicePods.SCHEDULER_NAME));
    // fabric8 reads an absent map as an empty one; the JSON the API server holds has no such
    // member, and a JSON Patch cannot add below a missing parent: add the whole map then.
    if (empty(pod.getMetadata().getLabels())) {
      ops.add(op("add", "/metadata/labels", Map.of(SlicePods.MANAGED_LABEL, "true")));
    } else {
      ops.add(op("add", "/metadata/labels/" + escape(SlicePods.MANAGED_LABEL), "true"));
    }
    if (isBound(claim) && !pod.getSpec().getContainers().isEmpty()) {
      var entry = SlicePods.resourceFor(claim.getStatus().getBinding(), node);
      String count = Integer.toString(entry.getValue());
      var resources = pod.getSpec().getContainers().getFirst().getResources();
      String base = "/spec/containers/0/resources";
      if (resources == null
          || (empty(resources.getRequests())
              && empty(resources.getLimits())
              && (resources.getClaims() == null || resources.getClaims().isEmpty()))) {
        Map<String, Object> both = new LinkedHashMap<>();
        both.put("requests", Map.of(entry.getKey(), count));
        both.put("limits", Map.of(entry.getKey(), count));
        ops.add(op("add", base, both));
      } else {
        for (String kind : List.of("requests", "limits")) {
          var existing = kind.equals("requests") ? resources.getRequests() : resources.getLimits();
          if (empty(existing)) {
            ops.add(op("add", base + "/" + kind, Map.of(entry.getKey(), count)));
          } else {
            ops.add(op("add", base + "/" + kind + "/" + escape(entry.getKey()), count));
          }
        }
      }
    }
    return ops;
  }

  public static boolean isBound(SliceClaim claim) {
    return claim != null
        && claim.getStatus() != null
        && claim.getStatus().getPhase() == Phase.Bound
        && claim.getStatus().getBinding() != null;
  }

  private static boolean empty(Map<?, ?> m) {
    return m == null || m.isEmpty();
  }

  private static Map<String, Object> op(String op, String path, Object value) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("op", op);
    m.put("path", path);
    m.put("value", value);
    return m;
  }

  /** JSON Pointer escaping (RFC 6901). */
  static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }
}
