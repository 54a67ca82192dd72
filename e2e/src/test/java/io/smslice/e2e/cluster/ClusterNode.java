package io.smslice.e2e.cluster;

import java.util.List;
import java.util.Map;

/** A node a kubelet registers: its name, labels and taints. */
public record ClusterNode(String name, Map<String, String> labels, List<String> taints) {

  /**
   * A GPU node as the NVIDIA GPU Operator labels it and as cloud providers taint it (GKE, AKS and
   * EKS's GPU AMIs: {@code nvidia.com/gpu=present:NoSchedule}).
   */
  public static ClusterNode asCloudProvidersMakeThem(String name) {
    return new ClusterNode(
        name,
        Map.of("nvidia.com/gpu.present", "true"),
        List.of("nvidia.com/gpu=present:NoSchedule"));
  }

  /** A node without a GPU, as most of a cluster's nodes are: no labels, no taints. */
  public static ClusterNode withoutGpu(String name) {
    return new ClusterNode(name, Map.of(), List.of());
  }

  String labelFlag() {
    return String.join(
        ",",
        labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList());
  }

  /** The taints as KubeletConfiguration's registerWithTaints. */
  String taintsYaml() {
    if (taints.isEmpty()) {
      return "";
    }
    StringBuilder yaml = new StringBuilder("registerWithTaints:\n");
    for (String taint : taints) {
      String[] keyRest = taint.split("=", 2);
      String[] valueEffect = keyRest[1].split(":", 2);
      yaml.append("  - {key: ")
          .append(keyRest[0])
          .append(", value: ")
          .append(valueEffect[0])
          .append(", effect: ")
          .append(valueEffect[1])
          .append("}\n");
    }
    return yaml.toString();
  }
}
