package io.smslice.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.operator.pods.SlicePods;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The JSON Patch (RFC 6902) that holds a pod of a claim for smslice: the label the operator
 * watches, the scheduling gate the operator lifts once the claim is Bound, tolerations of the GPU
 * node taints that placement treats as tolerated (so the pod can go where its claim is), and the
 * extended resource on the chosen container (requests and limits, which must be equal for extended
 * resources). Resources cannot change after admission, so the resource is set now, from the binding
 * when the claim is Bound, else from what the claim's isolation fixes.
 */
public final class PodPatches {
  private PodPatches() {}

  /**
   * @param resource the resource and count to request, or empty when not known yet
   * @param container index of the container that gets it
   * @param toleratedTaints taint keys placement ignores: the pod gets an Exists toleration of each
   */
  public static List<Map<String, Object>> forPod(
      Pod pod,
      Optional<Map.Entry<String, Integer>> resource,
      int container,
      Collection<String> toleratedTaints) {
    List<Map<String, Object>> ops = new ArrayList<>();
    // fabric8 reads an absent map or list as an empty one; the JSON the API server holds has no
    // such member, and a JSON Patch cannot add below a missing parent: add the whole value then
    // ("add" on an existing member replaces it, so an empty one is fine too).
    if (empty(pod.getMetadata().getLabels())) {
      ops.add(op("add", "/metadata/labels", Map.of(SlicePods.MANAGED_LABEL, "true")));
    } else {
      ops.add(op("add", "/metadata/labels/" + escape(SlicePods.MANAGED_LABEL), "true"));
    }
    var gates = pod.getSpec().getSchedulingGates();
    Map<String, Object> gate = Map.of("name", SlicePods.GATE);
    if (gates == null || gates.isEmpty()) {
      ops.add(op("add", "/spec/schedulingGates", List.of(gate)));
    } else if (gates.stream().noneMatch(g -> SlicePods.GATE.equals(g.getName()))) {
      ops.add(op("add", "/spec/schedulingGates/-", gate));
    }
    addTolerations(ops, pod, toleratedTaints);
    resource.ifPresent(entry -> addResource(ops, pod, entry, container));
    return ops;
  }

  static void addTolerations(
      List<Map<String, Object>> ops, Pod pod, Collection<String> toleratedTaints) {
    var existing = pod.getSpec().getTolerations();
    boolean none = existing == null || existing.isEmpty();
    List<Map<String, Object>> added = new ArrayList<>();
    for (String key : toleratedTaints.stream().sorted().toList()) {
      boolean tolerated =
          !none
              && existing.stream()
                  .anyMatch(
                      t ->
                          key.equals(t.getKey())
                              || (t.getKey() == null && "Exists".equals(t.getOperator())));
      if (!tolerated) {
        added.add(Map.of("key", key, "operator", "Exists"));
      }
    }
    if (none && !added.isEmpty()) {
      ops.add(op("add", "/spec/tolerations", added));
    } else {
      added.forEach(t -> ops.add(op("add", "/spec/tolerations/-", t)));
    }
  }

  /** The resource a pod of {@code claim} requests, if it can be known now. */
  public static Optional<Map.Entry<String, Integer>> resource(SliceClaim claim, SliceNode node) {
    if (claim == null) {
      return Optional.empty();
    }
    if (isBound(claim)) {
      return Optional.of(SlicePods.resourceFor(claim.getStatus().getBinding(), node));
    }
    return SlicePods.resourceBeforeBinding(claim.getSpec());
  }

  private static void addResource(
      List<Map<String, Object>> ops, Pod pod, Map.Entry<String, Integer> entry, int container) {
    String count = Integer.toString(entry.getValue());
    var resources = pod.getSpec().getContainers().get(container).getResources();
    String base = "/spec/containers/" + container + "/resources";
    if (resources == null
        || (empty(resources.getRequests())
            && empty(resources.getLimits())
            && (resources.getClaims() == null || resources.getClaims().isEmpty()))) {
      Map<String, Object> both = new LinkedHashMap<>();
      both.put("requests", Map.of(entry.getKey(), count));
      both.put("limits", Map.of(entry.getKey(), count));
      ops.add(op("add", base, both));
      return;
    }
    for (String kind : List.of("requests", "limits")) {
      var existing = kind.equals("requests") ? resources.getRequests() : resources.getLimits();
      if (empty(existing)) {
        ops.add(op("add", base + "/" + kind, Map.of(entry.getKey(), count)));
      } else {
        ops.add(op("add", base + "/" + kind + "/" + escape(entry.getKey()), count));
      }
    }
  }

  public static boolean isBound(SliceClaim claim) {
    return claim != null
        && claim.getStatus() != null
        && claim.getStatus().getPhase() == Phase.Bound
        && claim.getStatus().getBinding() != null;
  }

  static boolean empty(Map<?, ?> m) {
    return m == null || m.isEmpty();
  }

  static Map<String, Object> op(String op, String path, Object value) {
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
