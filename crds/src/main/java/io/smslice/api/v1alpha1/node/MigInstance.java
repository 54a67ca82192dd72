package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Quantity;

/** A MIG instance the administrator created on a MIG-mode GPU. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class MigInstance {
  @Required
  @JsonPropertyDescription("MIG profile name as NVML reports it, for example 1g.18gb.")
  private String profile;

  @Required
  @JsonPropertyDescription("MIG device UUID (MIG-...), as passed in NVIDIA_VISIBLE_DEVICES.")
  private String uuid;

  @Required
  @Min(1)
  @JsonPropertyDescription("SMs of the instance.")
  private int sms;

  @Required
  @JsonPropertyDescription("Device memory of the instance.")
  private Quantity memory;

  public MigInstance() {}

  public MigInstance(String profile, String uuid, int sms, Quantity memory) {
    this.profile = profile;
    this.uuid = uuid;
    this.sms = sms;
    this.memory = memory;
  }

  public String getProfile() {
    return profile;
  }

  public void setProfile(String profile) {
    this.profile = profile;
  }

  public String getUuid() {
    return uuid;
  }

  public void setUuid(String uuid) {
    this.uuid = uuid;
  }

  public int getSms() {
    return sms;
  }

  public void setSms(int sms) {
    this.sms = sms;
  }

  public Quantity getMemory() {
    return memory;
  }

  public void setMemory(Quantity memory) {
    this.memory = memory;
  }
}
