package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * How the node serves one claim bound to it: the operator turns this into the claim's Ready
 * condition and holds live resizes that would strand unmodified programs on their old SMs.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public class ServedClaim {
  @Required
  @JsonPropertyDescription("Namespace of the claim.")
  private String namespace;

  @Required
  @JsonPropertyDescription("Name of the claim.")
  private String name;

  @Required
  @JsonPropertyDescription("UUID of the GPU the claim is served on.")
  private String gpuUuid;

  @Required
  @JsonPropertyDescription(
      "True when the node serves the claim (its green context, worker or MIG device is ready).")
  private boolean serving;

  @JsonPropertyDescription("Why the node cannot serve the claim, when it cannot.")
  private String message;

  @JsonPropertyDescription(
      "The SM groups of the GPU the node serves the claim on (its green context), when green.")
  private java.util.List<Integer> smGroups;

  @Min(0)
  @JsonPropertyDescription(
      "Unmodified CUDA processes running in the claim's slice through the interposer.")
  private int transparentProcesses;

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getGpuUuid() {
    return gpuUuid;
  }

  public void setGpuUuid(String gpuUuid) {
    this.gpuUuid = gpuUuid;
  }

  public boolean isServing() {
    return serving;
  }

  public void setServing(boolean serving) {
    this.serving = serving;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public java.util.List<Integer> getSmGroups() {
    return smGroups;
  }

  public void setSmGroups(java.util.List<Integer> smGroups) {
    this.smGroups = smGroups;
  }

  public int getTransparentProcesses() {
    return transparentProcesses;
  }

  public void setTransparentProcesses(int transparentProcesses) {
    this.transparentProcesses = transparentProcesses;
  }
}
