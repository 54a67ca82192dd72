package io.smslice.node.dra.claims;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.events.WarningEvents;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The ResourceClaim calls of the DRA driver: read a claim, record a prepared device in its
 * status.devices, and put Events on it.
 */
public final class ResourceClaimApi {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CONFLICT_RETRIES = 5;

  /**
   * A device entry of status.devices.
   *
   * @param data the driver's data (gpuUuid, smGroups, sms, memoryBytes)
   */
  public record DeviceStatus(
      String pool, String device, String shareId, String message, ObjectNode data) {}

  private final KubernetesClient client;
  private final WarningEvents events;

  public ResourceClaimApi(KubernetesClient client, String nodeName) {
    this.client = client;
    this.events = new WarningEvents(client, nodeName);
  }

  public Optional<JsonNode> get(String namespace, String name) {
    GenericKubernetesResource r =
        client
            .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
            .inNamespace(namespace)
            .withName(name)
            .get();
    return Optional.ofNullable(r).map(JSON::valueToTree);
  }

  /**
   * Puts the entry in status.devices (replacing this driver's entry for the same device and share)
   * with a Ready condition. Retries on a conflicting write; needs update on resourceclaims/status
   * and, with DRAResourceClaimGranularStatusAuthorization, "associated-node:update" on
   * resourceclaims/driver named smslice.io.
   */
  public void recordDevice(String namespace, String name, String uid, DeviceStatus status) {
    for (int attempt = 1; ; attempt++) {
      GenericKubernetesResource current =
          client
              .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
              .inNamespace(namespace)
              .withName(name)
              .get();
      if (current == null || !uid.equals(current.getMetadata().getUid())) {
        throw new KubernetesClientException(
            "claim " + namespace + "/" + name + " with uid " + uid + " no longer exists");
      }
      ObjectNode claim = JSON.valueToTree(current);
      ObjectNode st = claim.withObjectProperty("status");
      ArrayNode devices = st.withArrayProperty("devices");
      for (int i = devices.size() - 1; i >= 0; i--) {
        if (sameDevice(devices.get(i), status)) {
          devices.remove(i);
        }
      }
      devices.add(entry(status, claim.path("metadata").path("generation").asLong(0)));
      try {
        client
            .genericKubernetesResources(DraDriver.RESOURCE_CLAIMS)
            .inNamespace(namespace)
            .resource(JSON.treeToValue(claim, GenericKubernetesResource.class))
            .updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= CONFLICT_RETRIES) {
          throw e;
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /**
   * Whether the claim (this uid) has this driver's entry for the device and share in
   * status.devices: a node side stopped between its checkpoint and that write left it out.
   */
  public boolean hasDevice(String namespace, String name, String uid, DeviceStatus status) {
    Optional<JsonNode> claim = get(namespace, name);
    if (claim.isEmpty() || !uid.equals(claim.get().path("metadata").path("uid").asText())) {
      return false;
    }
    for (JsonNode d : claim.get().path("status").path("devices")) {
      if (sameDevice(d, status)) {
        return true;
      }
    }
    return false;
  }

  private static boolean sameDevice(JsonNode entry, DeviceStatus status) {
    return DraDriver.NAME.equals(entry.path("driver").asText())
        && status.pool().equals(entry.path("pool").asText())
        && status.device().equals(entry.path("device").asText())
        && String.valueOf(status.shareId()).equals(entry.path("shareID").asText("null"));
  }

  private static ObjectNode entry(DeviceStatus status, long generation) {
    ObjectNode e = JSON.createObjectNode();
    e.put("driver", DraDriver.NAME);
    e.put("pool", status.pool());
    e.put("device", status.device());
    if (status.shareId() != null) {
      e.put("shareID", status.shareId());
    }
    ObjectNode ready = e.putArray("conditions").addObject();
    ready.put("type", "Ready");
    ready.put("status", "True");
    ready.put("reason", "Prepared");
    ready.put("message", status.message());
    ready.put("observedGeneration", generation);
    ready.put(
        "lastTransitionTime",
        DateTimeFormatter.ISO_INSTANT.format(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    e.set("data", status.data());
    return e;
  }

  /** A Warning Event on the claim; failing to record it is only logged. */
  public void warn(String namespace, String name, String uid, String reason, String message) {
    events.warn(
        "claim " + namespace + "/" + name,
        reference(namespace, name, uid),
        reason,
        message,
        Instant.now());
  }

  /** The claim as an event's involved object. */
  public static ObjectReference reference(String namespace, String name, String uid) {
    return WarningEvents.reference(DraDriver.API_VERSION, "ResourceClaim", namespace, name, uid);
  }
}
