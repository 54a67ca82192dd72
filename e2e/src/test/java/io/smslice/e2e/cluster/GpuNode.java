package io.smslice.e2e.cluster;

import java.util.List;
import java.util.Map;

/** The node the kubelet registers: its name, and the labels and taints a GPU node carries. */
public record GpuNode(String name, Map<String, String> labels, List<String> taints) {

  /**
   * A GPU node as the NVIDIA GPU Operator labels it and as cloud providers taint it (GKE, AKS and
   * EKS's GPU AMIs: {@code nvidia.com/gpu=present:NoSchedule}).
   */
  public static GpuNode asCloudProvidersMakeThem(String name) {
    return new GpuNode(
        name,
        Map.of("nvidia.com/gpu.present", "true"),
        List.of("nvidia.com/gpu=present:NoSchedule"));
  }

  String labelFlag() {
    return String.join(
        ",",
        labels.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).sorted().toList());
  }

  /** The taints as KubeletConfiguration's registerWithTaints. */
  String taintsYaml() {
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
