package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Stands in for the kube-scheduler, which the demo does not run: binds every pod of the namespace
 * that has no node and no scheduling gate left to the demo's one node. The operator lifts a claim
 * pod's gate (and pins it to the claim's node) once the claim is Bound; a real cluster's
 * kube-scheduler then checks fit, taints and affinity, which this stand-in does not.
 */
final class StandInScheduler implements AutoCloseable {
  private final SharedIndexInformer<Pod> informer;

  StandInScheduler(KubernetesClient client, String namespace, String node) {
    informer =
        client
            .pods()
            .inNamespace(namespace)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    bind(client, pod, node);
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    bind(client, pod, node);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknownState) {}
                });
  }

  private static void bind(KubernetesClient client, Pod pod, String node) {
    var spec = pod.getSpec();
    boolean gated = spec.getSchedulingGates() != null && !spec.getSchedulingGates().isEmpty();
    if (spec.getNodeName() != null || gated || pod.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .edit(
            p -> {
              p.getSpec().setNodeName(node);
              return p;
            });
  }

  @Override
  public void close() {
    informer.close();
  }
}
