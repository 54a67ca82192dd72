package io.smslice.node.events;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.api.v1alpha1.SmsliceApi;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Warning events the node side records on its objects, as this node's smslice-node. */
public final class WarningEvents {
  private static final Logger LOG = Logger.getLogger(WarningEvents.class.getName());
  private static final String COMPONENT = "smslice-node";

  private final KubernetesClient client;
  private final String nodeName;

  public WarningEvents(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  public String nodeName() {
    return nodeName;
  }

  /** An object as an event's involved object. */
  public static ObjectReference reference(
      String apiVersion, String kind, String namespace, String name, String uid) {
    return new ObjectReferenceBuilder()
        .withApiVersion(apiVersion)
        .withKind(kind)
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .build();
  }

  public static ObjectReference claimRef(String namespace, String name, String uid) {
    return reference(SmsliceApi.API_VERSION, "SliceClaim", namespace, name, uid);
  }

  public static ObjectReference podRef(Pod pod) {
    return reference(
        "v1",
        "Pod",
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid());
  }

  public static boolean terminated(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /**
   * A Warning Event on {@code ref}; a refused call is logged, naming the object as {@code what}
   * (such as "claim ml/detector"), not thrown: the events only tell, they decide nothing.
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
