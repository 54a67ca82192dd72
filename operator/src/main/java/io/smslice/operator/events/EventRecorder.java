package io.smslice.operator.events;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import org.jboss.logging.Logger;

/**
 * Writes core/v1 Events. The event name is derived from the object, reason and message, so a
 * repeated event is one object: its {@code count} grows and its {@code lastTimestamp} moves, as the
 * kubelet's own recorder aggregates (kubectl shows "3x over 2m").
 */
public class EventRecorder {
  private static final Logger LOG = Logger.getLogger(EventRecorder.class);
  public static final String COMPONENT = "smslice-operator";

  private final KubernetesClient client;
  private final Clock clock;

  public EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public void normal(HasMetadata obj, String reason, String message) {
    record(obj, "Normal", reason, message);
  }

  public void warning(HasMetadata obj, String reason, String message) {
    record(obj, "Warning", reason, message);
  }

  private void record(HasMetadata obj, String type, String reason, String message) {
    var meta = obj.getMetadata();
    String digest = Integer.toHexString((meta.getUid() + "|" + reason + "|" + message).hashCode());
    String base = meta.getName().length() > 200 ? meta.getName().substring(0, 200) : meta.getName();
    String name = base + "." + digest;
    String now = clock.instant().toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(meta.getNamespace())
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(obj.getApiVersion())
                    .withKind(obj.getKind())
                    .withName(meta.getName())
                    .withNamespace(meta.getNamespace())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType(type)
            .withReason(reason)
            .withMessage(message)
            .withReportingComponent(COMPONENT)
            .withNewSource()
            .withComponent(COMPONENT)
            .endSource()
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .build();
    try {
      try {
        client.v1().events().inNamespace(meta.getNamespace()).resource(event).create();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        client
            .v1()
            .events()
            .inNamespace(meta.getNamespace())
            .withName(name)
            .edit(
                existing -> {
                  existing.setCount(existing.getCount() == null ? 2 : existing.getCount() + 1);
                  existing.setLastTimestamp(now);
                  return existing;
                });
      }
    } catch (KubernetesClientException e) {
      // Events are best effort: a lost one must not fail the reconcile that reported it.
      LOG.debugf("event %s/%s not written: %s", meta.getNamespace(), name, e.getMessage());
    }
  }
}
