package io.smslice.operator.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import io.smslice.operator.config.Allocation;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.events.EventRecorder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.util.Objects;
import org.jboss.logging.Logger;

/**
 * With allocation dra, keeps a ResourceClaimTemplate of the same name beside every green
 * SliceClaimTemplate (controlled by it), so a pod that names the template gets a per-pod
 * ResourceClaim from the controller-manager. Template specs are immutable: a changed
 * SliceClaimTemplate gets a new ResourceClaimTemplate (claims already made from the old one keep
 * their size). Every replica runs it; writes are create-if-absent, so replicas racing do no harm.
 */
@ApplicationScoped
public class ClaimTemplateMirror {
  private static final Logger LOG = Logger.getLogger(ClaimTemplateMirror.class);

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final EventRecorder events;
  private SharedIndexInformer<SliceClaimTemplate> informer;

  public ClaimTemplateMirror(KubernetesClient client, OperatorConfig config, Clock clock) {
    this.client = client;
    this.config = config;
    this.events = new EventRecorder(client, clock);
  }

  void start(@Observes StartupEvent e) {
    if (Allocation.of(config) != Allocation.DRA) {
      return;
    }
    informer =
        client
            .resources(SliceClaimTemplate.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(SliceClaimTemplate t) {
                    guarded(t);
                  }

                  @Override
                  public void onUpdate(SliceClaimTemplate old, SliceClaimTemplate t) {
                    guarded(t);
                  }

                  @Override
                  public void onDelete(SliceClaimTemplate t, boolean unknownFinalState) {
                    // Its ResourceClaimTemplate is owned by it: the garbage collector removes it.
                  }
                },
                600_000L);
  }

  void stop(@Observes ShutdownEvent e) {
    if (informer != null) {
      informer.close();
    }
  }

  private void guarded(SliceClaimTemplate t) {
    try {
      sync(t);
    } catch (KubernetesClientException e) {
      LOG.warnf(
          e,
          "ResourceClaimTemplate %s/%s not written; tried again at the next resync",
          t.getMetadata().getNamespace(),
          t.getMetadata().getName());
    }
  }

  /** Makes or replaces the template's ResourceClaimTemplate; visible for tests. */
  void sync(SliceClaimTemplate t) {
    if (t.getSpec() == null || !ResourceClaimSpecs.servedByDra(t.getSpec().getSpec())) {
      return;
    }
    GenericKubernetesResource desired = ResourceClaimSpecs.templateFor(t);
    var templates =
        client
            .genericKubernetesResources(DraApi.RESOURCE_CLAIM_TEMPLATES)
            .inNamespace(t.getMetadata().getNamespace());
    GenericKubernetesResource live = templates.withName(t.getMetadata().getName()).get();
    if (live != null && !ResourceClaimSpecs.controlledBy(live, t)) {
      events.warning(
          t,
          "ResourceClaimTemplateNameTaken",
          "ResourceClaimTemplate "
              + t.getMetadata().getNamespace()
              + "/"
              + t.getMetadata().getName()
              + " exists and is not controlled by this SliceClaimTemplate: pods that name the"
              + " template get that one; delete or rename it");
      return;
    }
    if (live != null
        && Objects.equals(
            ResourceClaimSpecs.digestOf(live), ResourceClaimSpecs.digestOf(desired))) {
      return;
    }
    if (live != null) {
      templates.resource(live).delete();
    }
    try {
      templates.resource(desired).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }
}
