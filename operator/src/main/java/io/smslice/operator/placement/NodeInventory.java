package io.smslice.operator.placement;

import java.util.List;
import java.util.Map;

/**
 * A node's labels and GPUs. Only nodes that are live (fresh heartbeat) are given to the engine.
 *
 * @param closed why the node takes no new slices (cordoned, NotReady, tainted), or null when it
 *     does; slices it already holds stay, as pods already running stay on a cordoned node
 */
public record NodeInventory(
    String name, Map<String, String> labels, List<Gpu> gpus, String closed) {
  public NodeInventory {
    labels = Map.copyOf(labels);
    gpus = List.copyOf(gpus);
  }

  /** A node open to new slices. */
  public NodeInventory(String name, Map<String, String> labels, List<Gpu> gpus) {
    this(name, labels, gpus, null);
  }
}
