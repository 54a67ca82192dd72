package io.smslice.operator.inventory;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What placement needs to know of a Kubernetes Node: its labels, and why it takes no new slices
 * (null when it does). A node is closed when it is cordoned, not Ready, or carries a NoSchedule or
 * NoExecute taint whose key is not one GPU workloads are expected to tolerate.
 */
public record NodeFacts(Map<String, String> labels, String closed) {
  public NodeFacts {
    labels = Map.copyOf(labels);
  }

  public static NodeFacts of(Node node, Set<String> toleratedTaints) {
    var meta = node.getMetadata();
    Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
    List<String> why = new ArrayList<>();
    if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      why.add("cordoned");
    }
    String ready = ready(node);
    if (!"True".equals(ready)) {
      why.add("Ready is " + (ready == null ? "not reported" : ready));
    }
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      for (Taint t : node.getSpec().getTaints()) {
        boolean blocks = "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect());
        if (blocks && !toleratedTaints.contains(t.getKey())) {
          why.add("tainted " + t.getKey() + ":" + t.getEffect());
        }
      }
    }
    return new NodeFacts(labels, why.isEmpty() ? null : String.join(", ", why));
  }

  private static String ready(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return null;
    }
    return node.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .map(NodeCondition::getStatus)
        .findFirst()
        .orElse(null);
  }
}
