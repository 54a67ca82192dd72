package io.smslice.operator.bench;

import io.smslice.operator.placement.Gpu;
import io.smslice.operator.placement.NodeInventory;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The naive baseline: the first GPU (in node order) with enough free SMs, taking its free groups in
 * id order until the claim is covered.
 */
final class FirstFit {
  private final List<Gpu> gpus = new ArrayList<>();
  private final List<BitSet> used = new ArrayList<>();

  FirstFit(List<NodeInventory> nodes) {
    for (NodeInventory n : nodes) {
      for (Gpu g : n.gpus()) {
        gpus.add(g);
        used.add(new BitSet());
      }
    }
  }

  boolean place(int sms) {
    for (int i = 0; i < gpus.size(); i++) {
      Gpu g = gpus.get(i);
      BitSet taken = used.get(i);
      int free = 0;
      for (int k = 0; k < g.groups().size(); k++) {
        if (!taken.get(k)) {
          free += g.groups().get(k).sms();
        }
      }
      if (free < sms) {
        continue;
      }
      int got = 0;
      for (int k = 0; k < g.groups().size() && got < sms; k++) {
        if (!taken.get(k)) {
          taken.set(k);
          got += g.groups().get(k).sms();
        }
      }
      return true;
    }
    return false;
  }
}
