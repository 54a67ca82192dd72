package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Pins a gated pod to one node with required node affinity on the node's name, and lifts the
 * smslice gate. While a pod is gated Kubernetes (1.27+) lets its required node affinity be set when
 * absent, or narrowed by adding requirements to every term; that is all this does, so the user's
 * own affinity still applies and the kube-scheduler checks the rest.
 */
final class NodePin {
  static final String NODE_NAME_FIELD = "metadata.name";

  private NodePin() {}

  static void apply(PodSpec spec, String node) {
    NodeSelectorRequirement onNode = onNode(node);
    if (spec.getAffinity() == null) {
      spec.setAffinity(new Affinity());
    }
    Affinity affinity = spec.getAffinity();
    if (affinity.getNodeAffinity() == null) {
      affinity.setNodeAffinity(new NodeAffinity());
    }
    NodeAffinity nodeAffinity = affinity.getNodeAffinity();
    NodeSelector required = nodeAffinity.getRequiredDuringSchedulingIgnoredDuringExecution();
    if (required == null || required.getNodeSelectorTerms().isEmpty()) {
      NodeSelectorTerm term = new NodeSelectorTerm();
      term.setMatchFields(new ArrayList<>(List.of(onNode)));
      nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(
          new NodeSelector(new ArrayList<>(List.of(term))));
    } else {
      for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
        List<NodeSelectorRequirement> fields =
            term.getMatchFields() == null
                ? new ArrayList<>()
                : new ArrayList<>(term.getMatchFields());
        if (!fields.contains(onNode)) {
          fields.add(onNode);
        }
        term.setMatchFields(fields);
      }
    }
    spec.setSchedulingGates(
        new ArrayList<>(
            spec.getSchedulingGates().stream()
                .filter(g -> !SlicePods.GATE.equals(g.getName()))
                .toList()));
  }

  /** Whether {@link #apply} pinned the pod to {@code node} (every term names it). */
  static boolean pinnedTo(PodSpec spec, String node) {
    NodeSelectorRequirement onNode = onNode(node);
    var affinity = spec.getAffinity();
    var required =
        affinity == null || affinity.getNodeAffinity() == null
            ? null
            : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    return required != null
        && !required.getNodeSelectorTerms().isEmpty()
        && required.getNodeSelectorTerms().stream()
            .allMatch(t -> t.getMatchFields() != null && t.getMatchFields().contains(onNode));
  }

  private static NodeSelectorRequirement onNode(String node) {
    return new NodeSelectorRequirement(NODE_NAME_FIELD, "In", List.of(node));
  }

  static boolean gated(PodSpec spec) {
    return spec.getSchedulingGates() != null
        && spec.getSchedulingGates().stream().anyMatch(g -> SlicePods.GATE.equals(g.getName()));
  }
}
