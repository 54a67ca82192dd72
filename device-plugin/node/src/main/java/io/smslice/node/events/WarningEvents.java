package io.smslice.node.events;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Warning Events the node side records on an object, reported as this node's smslice-node. */
public final class WarningEvents {
  private static final Logger LOG = Logger.getLogger(WarningEvents.class.getName());
  private static final String COMPONENT = "smslice-node";

  private final KubernetesClient client;
  private final String nodeName;

  public WarningEvents(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  /**
   * A Warning Event on {@code ref}; failing to record it is only logged, naming the object as
   * {@code what} (such as "claim ml/detector").
   */
  public void warn(String what, ObjectReference ref, String reason, String message, Instant at) {
    String time = DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.SECONDS));
    try {
      client
          .v1()
          .events()
          .inNamespace(ref.getNamespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(ref.getName() + ".")
                  .withNamespace(ref.getNamespace())
                  .endMetadata()
                  .withInvolvedObject(ref)
                  .withType("Warning")
                  .withReason(reason)
                  .withMessage(message)
                  .withFirstTimestamp(time)
                  .withLastTimestamp(time)
                  .withCount(1)
                  .withNewSource()
                  .withComponent(COMPONENT)
                  .withHost(nodeName)
                  .endSource()
                  .withReportingComponent(COMPONENT)
                  .withReportingInstance(nodeName)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      LOG.log(Level.WARNING, "cannot record event " + reason + " on " + what, e);
    }
  }
}
