package io.smslice.node.dra.claims;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.node.dra.DraDriver;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a resource.k8s.io/v1 ResourceClaim (as JSON) into the one smslice device it was allocated
 * on this node. Every claim this node cannot serve gets a reason the user can act on.
 */
public final class ResourceClaimReader {
  private final String nodeName;

  public ResourceClaimReader(String nodeName) {
    this.nodeName = nodeName;
  }

  public AllocatedClaim read(JsonNode claim, String namespace, String name, String uid)
      throws PrepareException {
    String problem = "smslice: claim " + namespace + "/" + name;
    String actualUid = claim.path("metadata").path("uid").asText("");
    if (!actualUid.equals(uid)) {
      throw PrepareException.of(
          namespace,
          name,
          "has uid "
              + actualUid
              + ", not "
              + uid
              + " as the kubelet asked: the claim was deleted and made again; the kubelet retries"
              + " with the new one");
    }
    JsonNode allocation = claim.path("status").path("allocation");
    if (allocation.isMissingNode() || allocation.isNull()) {
      throw PrepareException.of(namespace, name, "is not allocated yet");
    }
    List<JsonNode> ours = new ArrayList<>();
    List<String> elsewhere = new ArrayList<>();
    for (JsonNode result : allocation.path("devices").path("results")) {
      if (!DraDriver.NAME.equals(result.path("driver").asText())) {
        continue;
      }
      if (nodeName.equals(result.path("pool").asText())) {
        ours.add(result);
      } else {
        elsewhere.add(result.path("pool").asText() + "/" + result.path("device").asText());
      }
    }
    if (ours.isEmpty()) {
      throw PrepareException.of(
          namespace,
          name,
          "has no smslice.io device allocated on node "
              + nodeName
              + (elsewhere.isEmpty() ? "" : " (its smslice.io devices are " + elsewhere + ")"));
    }
    if (ours.size() > 1 || !elsewhere.isEmpty()) {
      throw PrepareException.of(
          namespace,
          name,
          "was allocated "
              + (ours.size() + elsewhere.size())
              + " smslice.io devices: one claim is served on one GPU; ask for one device (count 1)"
              + " with capacity requests for sms and memory");
    }
    JsonNode result = ours.getFirst();
    String request = result.path("request").asText();
    JsonNode consumed = result.path("consumedCapacity");
    long sms =
        quantity(consumed.get("sms"), problem, "sms")
            .orElseThrow(
                () ->
                    PrepareException.of(
                        namespace,
                        name,
                        "has no consumed capacity 'sms' in its allocation: the cluster must have"
                            + " consumable capacity (DRAConsumableCapacity, Kubernetes 1.34+)"));
    long memory = quantity(consumed.get("memory"), problem, "memory").orElse(0L);
    SliceConfig config = config(allocation, request, problem);
    String shareId = result.hasNonNull("shareID") ? result.get("shareID").asText() : null;
    return new AllocatedClaim(
        namespace,
        name,
        uid,
        claim.path("metadata").path("generation").asLong(0),
        request,
        result.path("pool").asText(),
        result.path("device").asText(),
        shareId,
        sms,
        memory,
        config);
  }

  /**
   * The SliceConfig from the allocation's config entries for smslice.io that apply to the request:
   * the class's first, then the claim's, later fields winning (the order the API server gives).
   */
  private static SliceConfig config(JsonNode allocation, String request, String problem)
      throws PrepareException {
    SliceConfig config = SliceConfig.DEFAULTS;
    List<JsonNode> fromClass = new ArrayList<>();
    List<JsonNode> fromClaim = new ArrayList<>();
    for (JsonNode entry : allocation.path("devices").path("config")) {
      JsonNode opaque = entry.path("opaque");
      if (!DraDriver.NAME.equals(opaque.path("driver").asText())) {
        continue;
      }
      JsonNode requests = entry.path("requests");
      boolean applies = requests.isEmpty();
      for (JsonNode r : requests) {
        // "<request>" or "<request>/<subrequest>" (a prioritized list)
        String name = r.asText();
        applies |= name.equals(request) || request.startsWith(name + "/");
      }
      if (applies) {
        ("FromClass".equals(entry.path("source").asText()) ? fromClass : fromClaim)
            .add(opaque.path("parameters"));
      }
    }
    for (List<JsonNode> group : List.of(fromClass, fromClaim)) {
      for (JsonNode parameters : group) {
        config = config.overriddenBy(parameters, SliceConfig.parse(parameters, problem));
      }
    }
    return config;
  }

  private static Optional<Long> quantity(JsonNode value, String problem, String what)
      throws PrepareException {
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    try {
      BigDecimal bytes = Quantity.getAmountInBytes(new Quantity(value.asText()));
      return Optional.of(bytes.setScale(0, RoundingMode.CEILING).longValueExact());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new PrepareException(
          problem + " has consumed capacity " + what + " '" + value.asText() + "': not a quantity");
    }
  }
}
