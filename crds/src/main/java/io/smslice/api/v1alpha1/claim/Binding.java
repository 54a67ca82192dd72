package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.smslice.api.v1alpha1.node.GpuMode;
import java.util.ArrayList;
import java.util.List;

/** Where a claim was placed. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class Binding {
  @Required
  @JsonPropertyDescription("Node the claim is bound to; its pods are scheduled there.")
  private String node;

  @Required
  @JsonPropertyDescription("UUID of the GPU (GPU-...).")
  private String gpuUuid;

  @Required
  @JsonPropertyDescription("How the GPU serves the claim: Green, MIG or MPS.")
  private GpuMode mode;

  @JsonPropertyDescription("Ids of the SM groups of the GPU's split that form the slice (Green).")
  private List<Integer> smGroups = new ArrayList<>();

  @JsonPropertyDescription("SMs bound: the sum of the groups' SMs, or the MIG instance's SMs.")
  private Integer sms;

  @JsonPropertyDescription("MIG profile of the instance (MIG).")
  private String migProfile;

  @JsonPropertyDescription("UUID of the MIG device (MIG-...) (MIG).")
  private String migDeviceUuid;

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public String getGpuUuid() {
    return gpuUuid;
  }

  public void setGpuUuid(String gpuUuid) {
    this.gpuUuid = gpuUuid;
  }

  public GpuMode getMode() {
    return mode;
  }

  public void setMode(GpuMode mode) {
    this.mode = mode;
  }

  public List<Integer> getSmGroups() {
    return smGroups;
  }

  public void setSmGroups(List<Integer> smGroups) {
    this.smGroups = smGroups;
  }

  public Integer getSms() {
    return sms;
  }

  public void setSms(Integer sms) {
    this.sms = sms;
  }

  public String getMigProfile() {
    return migProfile;
  }

  public void setMigProfile(String migProfile) {
    this.migProfile = migProfile;
  }

  public String getMigDeviceUuid() {
    return migDeviceUuid;
  }

  public void setMigDeviceUuid(String migDeviceUuid) {
    this.migDeviceUuid = migDeviceUuid;
  }
}
