package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** The spec every claim made from a template gets. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class SliceClaimTemplateSpec {
  @Required
  @ValidationRule(
      value = "self.isolation == 'Compute' || self.isolation == 'Memory'",
      message =
          "a claim template's spec.isolation must be Compute or Memory: a pod's resource request is"
              + " fixed when the pod is created, before its claim is placed, so the isolation must"
              + " fix it")
  @JsonPropertyDescription(
      "The SliceClaim spec of each pod's claim (isolation Compute or Memory; see SliceClaim).")
  private SliceClaimSpec spec;

  public SliceClaimSpec getSpec() {
    return spec;
  }

  public void setSpec(SliceClaimSpec spec) {
    this.spec = spec;
  }
}
