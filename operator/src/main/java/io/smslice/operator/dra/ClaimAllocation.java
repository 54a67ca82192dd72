package io.smslice.operator.dra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a ResourceClaim's status says about its smslice device: the kube-scheduler's allocation
 * (pool = node, device, consumed SMs and memory) and, once the node prepared it, the device status
 * the node recorded (GPU UUID, SM groups, the Ready condition).
 *
 * @param node the pool, which is the node's name
 * @param sms consumed SMs (the request rounded up to the GPU's SM group size)
 * @param gpuUuid from the node's device status data, or null before it prepared the claim
 * @param smGroups from the node's device status data, empty before
 * @param ready the node's Ready condition status ("True"/"False"), or null when it has none
 * @param readyMessage that condition's reason and message, for the SliceClaim's Ready condition
 */
public record ClaimAllocation(
    String node,
    String device,
    Integer sms,
    String gpuUuid,
    List<Integer> smGroups,
    String ready,
    String readyMessage) {

  public ClaimAllocation {
    smGroups = List.copyOf(smGroups);
  }

  /** The allocation of request {@value DraApi#REQUEST} to this driver, if the claim has one. */
  public static Optional<ClaimAllocation> of(JsonNode claim) {
    JsonNode status = claim.path("status");
    JsonNode result = null;
    for (JsonNode r : status.path("allocation").path("devices").path("results")) {
      if (DraApi.DRIVER.equals(r.path("driver").asText())
          && DraApi.REQUEST.equals(r.path("request").asText())) {
        result = r;
        break;
      }
    }
    if (result == null) {
      return Optional.empty();
    }
    String pool = result.path("pool").asText();
    String device = result.path("device").asText();
    String share = result.path("shareID").asText(null);
    JsonNode sms = result.path("consumedCapacity").path("sms");
    Integer consumed = sms.isMissingNode() ? null : parseCount(sms.asText());
    for (JsonNode d : status.path("devices")) {
      if (DraApi.DRIVER.equals(d.path("driver").asText())
          && pool.equals(d.path("pool").asText())
          && device.equals(d.path("device").asText())
          && (share == null || share.equals(d.path("shareID").asText(null)))) {
        JsonNode data = d.path("data");
        String ready = null;
        String readyMessage = null;
        for (JsonNode c : d.path("conditions")) {
          if ("Ready".equals(c.path("type").asText())) {
            ready = c.path("status").asText();
            readyMessage = c.path("reason").asText("") + ": " + c.path("message").asText("");
          }
        }
        Integer recorded = data.hasNonNull("sms") ? parseCount(data.path("sms").asText()) : null;
        return Optional.of(
            new ClaimAllocation(
                pool,
                device,
                consumed != null ? consumed : recorded,
                data.path("gpuUuid").asText(null),
                groups(data.path("smGroups")),
                ready,
                readyMessage));
      }
    }
    return Optional.of(new ClaimAllocation(pool, device, consumed, null, List.of(), null, null));
  }

  /** The pods the claim is reserved for (status.reservedFor), as namespace-less names. */
  public static List<String> reservedFor(JsonNode claim) {
    List<String> pods = new ArrayList<>();
    claim.path("status").path("reservedFor").forEach(r -> pods.add(r.path("name").asText()));
    return pods;
  }

  /** smGroups as the node writes them: a JSON list of ids, or the comma-separated ids. */
  private static List<Integer> groups(JsonNode node) {
    List<Integer> ids = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(n -> ids.add(n.asInt()));
    } else if (node.isTextual() && !node.asText().isBlank()) {
      for (String id : node.asText().split(",")) {
        ids.add(Integer.parseInt(id.trim()));
      }
    }
    return ids;
  }

  /** A whole-number quantity such as "16" (SM counts carry no suffix). */
  private static Integer parseCount(String quantity) {
    try {
      return io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
              new io.fabric8.kubernetes.api.model.Quantity(quantity))
          .intValueExact();
    } catch (ArithmeticException | IllegalArgumentException e) {
      return null;
    }
  }
}
