package io.smslice.operator.events;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import org.jboss.logging.Logger;

/**
 * Writes core/v1 Events. The event name is derived from the object, reason and message, so the same
 * event is written once however often a reconcile repeats it (a second create is a 409, ignored).
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
      client.v1().events().inNamespace(meta.getNamespace()).resource(event).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        LOG.debugf("event %s/%s not written: %s", meta.getNamespace(), name, e.getMessage());
      }
    }
  }
}
