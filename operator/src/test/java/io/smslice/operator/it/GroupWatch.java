package io.smslice.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches every claim's status while a test runs and notes each moment at which one SM group of a
 * GPU is shown bound to two claims. A check made only when the run ends misses a double binding
 * that a later reload repaired; this one sees the state after every status write. A claim being
 * deleted is left out: its slice is freed while its object, status and all, still exists.
 */
final class GroupWatch implements AutoCloseable {
  private final Map<String, Binding> shown = new HashMap<>();
  private final List<String> doubles = new ArrayList<>();
  private final Watch watch;
  private int events;

  GroupWatch(KubernetesClient client, String namespace) {
    watch =
        client
            .resources(SliceClaim.class)
            .inNamespace(namespace)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, SliceClaim claim) {
                    seen(action, claim);
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    synchronized (GroupWatch.this) {
                      doubles.add("the watch closed: " + cause);
                    }
                  }
                });
  }

  private synchronized void seen(Watcher.Action action, SliceClaim claim) {
    events++;
    String name = claim.getMetadata().getName();
    var status = claim.getStatus();
    boolean holds =
        action != Watcher.Action.DELETED
            && claim.getMetadata().getDeletionTimestamp() == null
            && status != null
            && status.getBinding() != null
            && (status.getPhase() == Phase.Bound || status.getPhase() == Phase.Resizing);
    if (!holds) {
      shown.remove(name);
      return;
    }
    Binding b = status.getBinding();
    shown.put(name, b);
    for (var other : shown.entrySet()) {
      Binding o = other.getValue();
      if (other.getKey().equals(name) || !o.getGpuUuid().equals(b.getGpuUuid())) {
        continue;
      }
      for (int g : b.getSmGroups()) {
        if (o.getSmGroups().contains(g)) {
          doubles.add(
              "group %d of %s shown bound to %s and %s (event %d)"
                  .formatted(g, b.getGpuUuid(), name, other.getKey(), events));
        }
      }
    }
  }

  /** Every double binding seen so far, in the order seen. */
  synchronized List<String> doubles() {
    return List.copyOf(doubles);
  }

  /** How many claim events the watch has seen (a test can wait for it to catch up). */
  synchronized int events() {
    return events;
  }

  @Override
  public void close() {
    watch.close();
  }
}
