package io.smslice.node.resources;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Preferred allocation for resources with many devices per GPU (SMs, MPS shares): keep a
 * container's devices on one GPU, the GPU of the claim it is most likely for, so that the kubelet's
 * accounting matches where the operator placed the claim.
 */
final class GpuPacking {
  private GpuPacking() {}

  static List<String> choose(
      List<String> available, List<String> mustInclude, int size, String likelyGpu) {
    Set<String> chosen = new LinkedHashSet<>(mustInclude);
    Map<String, List<String>> byGpu = new TreeMap<>();
    for (String id : available) {
      byGpu.computeIfAbsent(DeviceIds.gpuOf(id), g -> new ArrayList<>()).add(id);
    }
    List<String> order = new ArrayList<>(byGpu.keySet());
    // Likely GPU first, then the GPU of a must-include device, then the one with most devices free.
    order.sort(
        Comparator.comparing((String g) -> !g.equals(likelyGpu))
            .thenComparing(g -> mustInclude.stream().noneMatch(id -> DeviceIds.gpuOf(id).equals(g)))
            .thenComparing(g -> -byGpu.get(g).size()));
    for (String gpu : order) {
      List<String> ids = byGpu.get(gpu);
      ids.sort(DeviceIds.ORDER);
      for (String id : ids) {
        if (chosen.size() >= size) {
          return List.copyOf(chosen);
        }
        chosen.add(id);
      }
    }
    return List.copyOf(chosen);
  }
}
