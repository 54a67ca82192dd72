package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.smslice.api.v1alpha1.Condition;
import java.util.ArrayList;
import java.util.List;

/** What the operator made of a claim. Written only by the operator. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class SliceClaimStatus {
  @JsonPropertyDescription("Pending, Bound, Resizing, Failed or Released.")
  private Phase phase;

  @JsonPropertyDescription("Where the claim is placed, once Bound.")
  private Binding binding;

  @JsonPropertyDescription(
      "Latest observations, one per type: Placed, Resized, and Ready (Bound and served by its"
          + " node: what kubectl wait --for=condition=Ready waits for); each with the generation it"
          + " describes.")
  private List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("The spec generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Human-readable summary, for example why the claim is Pending.")
  private String message;

  public Phase getPhase() {
    return phase;
  }

  public void setPhase(Phase phase) {
    this.phase = phase;
  }

  public Binding getBinding() {
    return binding;
  }

  public void setBinding(Binding binding) {
    this.binding = binding;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }
}
