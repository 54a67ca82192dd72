package io.smslice.operator.placement;

import java.util.List;
import java.util.Map;

/** A node's labels and GPUs. Only nodes that are live (fresh heartbeat) are given to the engine. */
public record NodeInventory(String name, Map<String, String> labels, List<Gpu> gpus) {
  public NodeInventory {
    labels = Map.copyOf(labels);
    gpus = List.copyOf(gpus);
  }
}
