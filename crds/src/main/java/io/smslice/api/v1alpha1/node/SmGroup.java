package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** One group of the GPU's single SM split; a slice is a set of groups. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class SmGroup {
  @Required
  @Min(0)
  @JsonPropertyDescription(
      "Index of the group in the GPU's split; stable for the agent's lifetime.")
  private int id;

  @Required
  @Min(1)
  @JsonPropertyDescription("Number of SMs in the group.")
  private int sms;

  public SmGroup() {}

  public SmGroup(int id, int sms) {
    this.id = id;
    this.sms = sms;
  }

  public int getId() {
    return id;
  }

  public void setId(int id) {
    this.id = id;
  }

  public int getSms() {
    return sms;
  }

  public void setSms(int sms) {
    this.sms = sms;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SmGroup g && g.id == id && g.sms == sms;
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, sms);
  }

  @Override
  public String toString() {
    return "SmGroup{id=" + id + ", sms=" + sms + "}";
  }
}
