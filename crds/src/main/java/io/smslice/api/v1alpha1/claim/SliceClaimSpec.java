package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;

/** What a workload asks for. */
@ValidationRule(
    value = "self.isolation == 'Memory' || has(self.sms)",
    message = "spec.sms is required unless isolation is Memory: say how many SMs the slice needs",
    reason = "FieldValueRequired",
    fieldPath = ".sms")
@ValidationRule(
    value = "self.isolation != 'Memory' || has(self.memory)",
    message =
        "spec.memory is required when isolation is Memory: a MIG instance is chosen by its memory",
    reason = "FieldValueRequired",
    fieldPath = ".memory")
@ValidationRule(
    value =
        "!has(self.memory) || (isQuantity(string(self.memory))"
            + " && sign(quantity(string(self.memory))) > 0"
            + " && quantity(string(self.memory)).isInteger())",
    message =
        "spec.memory must be a positive whole number of bytes such as 8Gi or 512Mi (512m would be"
            + " 0.512 bytes)",
    fieldPath = ".memory")
@ValidationRule(
    value = "self.isolation == oldSelf.isolation",
    message = "spec.isolation cannot change: delete the claim and create a new one")
@JsonIgnoreProperties(ignoreUnknown = true)
public class SliceClaimSpec {
  @Min(1)
  @Max(1024)
  @JsonPropertyDescription(
      "Streaming multiprocessors the slice needs. Rounded up to the GPU's partition granularity"
          + " (the bound count is in status.binding.sms). Optional for Memory isolation, where it is"
          + " the least number of SMs the MIG instance must have.")
  private Integer sms;

  @JsonPropertyDescription(
      "Device memory the slice may allocate, as a quantity (8Gi). The agent refuses allocations"
          + " beyond it; required for Memory isolation.")
  private Quantity memory;

  @Default("Auto")
  @JsonPropertyDescription(
      "Compute: a green context (hard SM slice). Memory: a MIG instance. Shared: an MPS share."
          + " Auto: the operator chooses (see docs/placement.md). Cannot change.")
  private Isolation isolation = Isolation.Auto;

  @Default("Standard")
  @JsonPropertyDescription(
      "LatencyCritical claims may displace BestEffort ones when a GPU is full; see"
          + " docs/placement.md.")
  private Priority priority = Priority.Standard;

  @JsonPropertyDescription("Optional restrictions on the GPU and node the claim is placed on.")
  private GpuSelector selector;

  @Default("false")
  @JsonPropertyDescription(
      "The workload's speed is set by memory bandwidth rather than by compute (large copies,"
          + " embedding lookups, batch-1 decoding of large models). A green slice partitions SMs,"
          + " not memory bandwidth or L2, so with isolation Auto such a claim takes a MIG instance"
          + " first and a green slice only when no instance fits; see docs/placement.md.")
  private Boolean memoryBound = false;

  public Integer getSms() {
    return sms;
  }

  public void setSms(Integer sms) {
    this.sms = sms;
  }

  public Quantity getMemory() {
    return memory;
  }

  public void setMemory(Quantity memory) {
    this.memory = memory;
  }

  public Isolation getIsolation() {
    return isolation;
  }

  public void setIsolation(Isolation isolation) {
    this.isolation = isolation;
  }

  public Priority getPriority() {
    return priority;
  }

  public void setPriority(Priority priority) {
    this.priority = priority;
  }

  public Boolean getMemoryBound() {
    return memoryBound;
  }

  public void setMemoryBound(Boolean memoryBound) {
    this.memoryBound = memoryBound;
  }

  public GpuSelector getSelector() {
    return selector;
  }

  public void setSelector(GpuSelector selector) {
    this.selector = selector;
  }
}
