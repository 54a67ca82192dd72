package io.smslice.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** One observation about an object, in the shape of Kubernetes' metav1.Condition. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class Condition {
  @Required
  @JsonPropertyDescription("Kind of observation, in CamelCase, for example Placed or Ready.")
  private String type;

  @Required
  @Pattern("^(True|False|Unknown)$")
  @JsonPropertyDescription("True, False or Unknown.")
  private String status;

  @JsonPropertyDescription("Machine-readable cause of the last transition, in CamelCase.")
  private String reason;

  @JsonPropertyDescription("Human-readable details of the last transition.")
  private String message;

  @Required
  @JsonPropertyDescription("RFC 3339 time the status last changed.")
  private String lastTransitionTime;

  @JsonPropertyDescription("The .metadata.generation the condition was set from.")
  private Long observedGeneration;

  public Condition() {}

  public Condition(
      String type,
      String status,
      String reason,
      String message,
      String lastTransitionTime,
      Long observedGeneration) {
    this.type = type;
    this.status = status;
    this.reason = reason;
    this.message = message;
    this.lastTransitionTime = lastTransitionTime;
    this.observedGeneration = observedGeneration;
  }

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public String getLastTransitionTime() {
    return lastTransitionTime;
  }

  public void setLastTransitionTime(String lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Condition c
        && Objects.equals(type, c.type)
        && Objects.equals(status, c.status)
        && Objects.equals(reason, c.reason)
        && Objects.equals(message, c.message)
        && Objects.equals(lastTransitionTime, c.lastTransitionTime)
        && Objects.equals(observedGeneration, c.observedGeneration);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, status, reason, message, lastTransitionTime, observedGeneration);
  }
}
