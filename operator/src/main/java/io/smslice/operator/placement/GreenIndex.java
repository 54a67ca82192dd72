package io.smslice.operator.placement;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Healthy green GPUs grouped by product and by the shape of their free groups, each bucket in GPU
 * order. Kept current on every change so that a search visits shapes, not GPUs.
 */
final class GreenIndex {
  private final Comparator<GpuState> order;
  private final Map<String, Map<Shape, TreeSet<GpuState>>> byProduct = new HashMap<>();
  private final Map<GpuState, Shape> indexedAs = new HashMap<>();

  GreenIndex(Comparator<GpuState> order) {
    this.order = order;
  }

  Map<String, Map<Shape, TreeSet<GpuState>>> byProduct() {
    return byProduct;
  }

  void update(GpuState gpu) {
    Shape old = indexedAs.remove(gpu);
    Map<Shape, TreeSet<GpuState>> shapes =
        byProduct.computeIfAbsent(productKey(gpu.gpu.product()), k -> new HashMap<>());
    if (old != null) {
      TreeSet<GpuState> bucket = shapes.get(old);
      bucket.remove(gpu);
      if (bucket.isEmpty()) {
        shapes.remove(old);
      }
    }
    Shape now = gpu.shape(java.util.Set.of());
    if (now.sizes.length > 0) {
      shapes.computeIfAbsent(now, k -> new TreeSet<>(order)).add(gpu);
      indexedAs.put(gpu, now);
    }
  }

  static String productKey(String product) {
    return product == null ? "" : product;
  }
}
