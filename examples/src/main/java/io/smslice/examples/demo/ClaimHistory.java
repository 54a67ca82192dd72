package io.smslice.examples.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every phase each claim went through, with its bound SM count, from a watch: a poll once a second
 * could miss a short Resizing.
 */
final class ClaimHistory implements AutoCloseable {
  /** One observed state of a claim. */
  record Step(String phase, Integer sms) {
    @Override
    public String toString() {
      return sms == null ? phase : phase + "(" + sms + ")";
    }
  }

  private final Map<String, List<Step>> steps = new ConcurrentHashMap<>();
  private final SharedIndexInformer<SliceClaim> informer;

  ClaimHistory(KubernetesClient client) {
    informer =
        client
            .resources(SliceClaim.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(SliceClaim claim) {
                    observe(claim);
                  }

                  @Override
                  public void onUpdate(SliceClaim old, SliceClaim claim) {
                    observe(claim);
                  }

                  @Override
                  public void onDelete(SliceClaim claim, boolean unknown) {}
                });
  }

  private void observe(SliceClaim claim) {
    var status = claim.getStatus();
    if (status == null || status.getPhase() == null) {
      return;
    }
    Integer sms = status.getBinding() == null ? null : status.getBinding().getSms();
    Step step = new Step(status.getPhase().name(), sms);
    List<Step> list = steps.computeIfAbsent(claim.getMetadata().getName(), k -> new ArrayList<>());
    synchronized (list) {
      if (list.isEmpty() || !list.getLast().equals(step)) {
        list.add(step);
      }
    }
  }

  /** The steps of one claim so far (empty if it has no status yet). */
  List<Step> of(String claim) {
    List<Step> list = steps.get(claim);
    if (list == null) {
      return List.of();
    }
    synchronized (list) {
      return List.copyOf(list);
    }
  }

  @Override
  public void close() {
    informer.close();
  }
}
