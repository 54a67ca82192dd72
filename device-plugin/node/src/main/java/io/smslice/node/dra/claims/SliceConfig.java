package io.smslice.node.dra.claims;

import com.fasterxml.jackson.databind.JsonNode;
import io.smslice.api.v1alpha1.claim.Priority;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The opaque configuration a claim or its DeviceClass gives the smslice.io driver: {@code
 * {apiVersion: smslice.io/v1alpha1, kind: SliceConfig, priority, transparent}}. Missing fields keep
 * their defaults (Standard, the node's transparent setting); anything unknown is an error, so that
 * a typo is not silently ignored.
 *
 * @param transparent empty: the node's default
 */
public record SliceConfig(Priority priority, Optional<Boolean> transparent) {
  public static final String API_VERSION = "smslice.io/v1alpha1";
  public static final String KIND = "SliceConfig";
  public static final SliceConfig DEFAULTS = new SliceConfig(Priority.Standard, Optional.empty());

  private static final Set<String> FIELDS = Set.of("apiVersion", "kind", "priority", "transparent");

  /**
   * Reads one opaque parameters object.
   *
   * @param problem prefix of every error, naming the claim ("smslice: claim ns/name")
   */
  public static SliceConfig parse(JsonNode parameters, String problem) throws PrepareException {
    if (parameters == null || !parameters.isObject()) {
      throw new PrepareException(
          problem
              + " has opaque config for smslice.io that is not an object: write {apiVersion: "
              + API_VERSION
              + ", kind: "
              + KIND
              + ", priority: Standard}");
    }
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> it = parameters.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!FIELDS.contains(field)) {
        unknown.add(field);
      }
    }
    if (!unknown.isEmpty()) {
      throw new PrepareException(
          problem
              + " has unknown field(s) "
              + unknown
              + " in its smslice.io config: a SliceConfig has apiVersion, kind, priority and"
              + " transparent");
    }
    String apiVersion = parameters.path("apiVersion").asText(null);
    String kind = parameters.path("kind").asText(null);
    if (!API_VERSION.equals(apiVersion) || !KIND.equals(kind)) {
      throw new PrepareException(
          problem
              + " has smslice.io config of apiVersion "
              + apiVersion
              + ", kind "
              + kind
              + ": this node reads apiVersion "
              + API_VERSION
              + ", kind "
              + KIND);
    }
    Priority priority = Priority.Standard;
    JsonNode p = parameters.get("priority");
    if (p != null && !p.isNull()) {
      priority = priority(p.asText(), problem);
    }
    Optional<Boolean> transparent = Optional.empty();
    JsonNode t = parameters.get("transparent");
    if (t != null && !t.isNull()) {
      if (!t.isBoolean()) {
        throw new PrepareException(
            problem + " has transparent: " + t + " in its SliceConfig: write true or false");
      }
      transparent = Optional.of(t.booleanValue());
    }
    return new SliceConfig(priority, transparent);
  }

  private static Priority priority(String text, String problem) throws PrepareException {
    for (Priority p : Priority.values()) {
      if (p.name().equals(text)) {
        return p;
      }
    }
    throw new PrepareException(
        problem
            + " has priority '"
            + text
            + "' in its SliceConfig: write LatencyCritical, Standard or BestEffort");
  }

  /** Fields of {@code later} that are set win (a claim's config over its class's). */
  public SliceConfig overriddenBy(JsonNode later, SliceConfig parsed) {
    return new SliceConfig(
        later.has("priority") ? parsed.priority() : priority,
        parsed.transparent().isPresent() ? parsed.transparent() : transparent);
  }
}
