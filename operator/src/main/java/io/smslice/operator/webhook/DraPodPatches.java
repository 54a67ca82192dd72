package io.smslice.operator.webhook;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.operator.dra.DraApi;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON Patch that gives a pod of a DRA-served SliceClaim (or SliceClaimTemplate) its slice the
 * DRA way: the pod claim {@value DraApi#POD_CLAIM} naming the ResourceClaim (or
 * ResourceClaimTemplate) of the same name, that claim on the chosen container's resources.claims,
 * the tolerations of GPU node taints as for device-plugin pods, and the claim's node labels as
 * nodeSelector entries (device selectors cannot see node labels). No scheduling gate and no
 * extended resource: the kube-scheduler allocates the claim while it schedules the pod.
 */
public final class DraPodPatches {
  private DraPodPatches() {}

  /** Why the pod cannot get the claim, or null. */
  public static String conflict(Pod pod, Map<String, String> nodeLabels) {
    var claims = pod.getSpec().getResourceClaims();
    if (claims != null && claims.stream().anyMatch(c -> DraApi.POD_CLAIM.equals(c.getName()))) {
      return "the pod already has a resource claim named "
          + DraApi.POD_CLAIM
          + " in spec.resourceClaims, the name smslice gives its own: rename yours";
    }
    var selector = pod.getSpec().getNodeSelector();
    for (var label : nodeLabels.entrySet()) {
      String own = selector == null ? null : selector.get(label.getKey());
      if (own != null && !own.equals(label.getValue())) {
        return "the pod's nodeSelector "
            + label.getKey()
            + "="
            + own
            + " contradicts its claim's selector.nodeLabels "
            + label.getKey()
            + "="
            + label.getValue();
      }
    }
    return null;
  }

  /**
   * @param claimName the ResourceClaim's name, or null when {@code templateName} is given
   * @param templateName the ResourceClaimTemplate's name, or null
   * @param container index of the container that gets the claim
   */
  public static List<Map<String, Object>> forPod(
      Pod pod,
      String claimName,
      String templateName,
      int container,
      Collection<String> toleratedTaints,
      Map<String, String> nodeLabels) {
    List<Map<String, Object>> ops = new ArrayList<>();
    Map<String, Object> podClaim = new LinkedHashMap<>();
    podClaim.put("name", DraApi.POD_CLAIM);
    if (claimName != null) {
      podClaim.put("resourceClaimName", claimName);
    } else {
      podClaim.put("resourceClaimTemplateName", templateName);
    }
    var claims = pod.getSpec().getResourceClaims();
    if (claims == null || claims.isEmpty()) {
      ops.add(PodPatches.op("add", "/spec/resourceClaims", List.of(podClaim)));
    } else {
      ops.add(PodPatches.op("add", "/spec/resourceClaims/-", podClaim));
    }
    Map<String, Object> ref = Map.of("name", DraApi.POD_CLAIM);
    String base = "/spec/containers/" + container + "/resources";
    var resources = pod.getSpec().getContainers().get(container).getResources();
    if (resources == null
        || (PodPatches.empty(resources.getRequests())
            && PodPatches.empty(resources.getLimits())
            && (resources.getClaims() == null || resources.getClaims().isEmpty()))) {
      // fabric8 reads an absent member as empty: add the whole value (see PodPatches).
      ops.add(PodPatches.op("add", base, Map.of("claims", List.of(ref))));
    } else if (resources.getClaims() == null || resources.getClaims().isEmpty()) {
      ops.add(PodPatches.op("add", base + "/claims", List.of(ref)));
    } else {
      ops.add(PodPatches.op("add", base + "/claims/-", ref));
    }
    PodPatches.addTolerations(ops, pod, toleratedTaints);
    var selector = pod.getSpec().getNodeSelector();
    Map<String, String> missing = new LinkedHashMap<>();
    nodeLabels.forEach(
        (k, v) -> {
          if (selector == null || !selector.containsKey(k)) {
            missing.put(k, v);
          }
        });
    if (!missing.isEmpty()) {
      if (PodPatches.empty(selector)) {
        ops.add(PodPatches.op("add", "/spec/nodeSelector", missing));
      } else {
        missing.forEach(
            (k, v) ->
                ops.add(PodPatches.op("add", "/spec/nodeSelector/" + PodPatches.escape(k), v)));
      }
    }
    return ops;
  }
}
