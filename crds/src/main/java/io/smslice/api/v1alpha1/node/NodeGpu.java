package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;

/** One GPU of a node, as the node side discovered it. */
@ValidationRule(
    value = "self.smGroups.all(g, self.smGroups.exists_one(h, h.id == g.id))",
    message = "smGroups ids must be unique")
@JsonIgnoreProperties(ignoreUnknown = true)
public class NodeGpu {
  @Required
  @Min(0)
  @JsonPropertyDescription("CUDA device ordinal on the node.")
  private int index;

  @Required
  @JsonPropertyDescription("GPU UUID (GPU-...), from NVML or the CUDA driver.")
  private String uuid;

  @JsonPropertyDescription("Product name, for example NVIDIA H200.")
  private String product;

  @Required
  @JsonPropertyDescription("How this GPU is shared: Green, MIG, MPS or Off.")
  private GpuMode mode;

  @Required
  @Min(1)
  @JsonPropertyDescription("Streaming multiprocessors of the whole GPU.")
  private int smCount;

  @Min(1)
  @JsonPropertyDescription(
      "Smallest SM partition the driver allows (minSmPartitionSize); slices are multiples of it.")
  private Integer minPartitionSize;

  @Min(1)
  @JsonPropertyDescription(
      "SM co-scheduling alignment the driver reports (smCoscheduledAlignment).")
  private Integer coscheduledAlignment;

  // Bounded so that the API server's cost estimate of the uniqueness rule above stays in budget.
  @Size(max = 128)
  @JsonPropertyDescription(
      "Groups of the GPU's one SM split (Green mode); a slice is a set of these groups.")
  private List<SmGroup> smGroups = new ArrayList<>();

  @Size(max = 64)
  @JsonPropertyDescription("MIG instances present on the GPU (MIG mode).")
  private List<MigInstance> migInstances = new ArrayList<>();

  @Min(0)
  @JsonPropertyDescription(
      "Version the GPU's MPS control daemon reports (for example 13000), when the node runs one.")
  private Integer mpsControlVersion;

  @JsonPropertyDescription(
      "True when the driver offers MPS static SM partitioning (MPS control 13010 or newer).")
  private Boolean mpsStaticPartitioning;

  @Required
  @JsonPropertyDescription("Device memory of the whole GPU.")
  private Quantity memory;

  @Default("Healthy")
  @JsonPropertyDescription(
      "Healthy GPUs take new claims; claims on an Unhealthy GPU are re-placed.")
  private GpuHealth health = GpuHealth.Healthy;

  @JsonPropertyDescription("Why the GPU is unhealthy, when it is.")
  private String healthReason;

  public Integer getMpsControlVersion() {
    return mpsControlVersion;
  }

  public void setMpsControlVersion(Integer mpsControlVersion) {
    this.mpsControlVersion = mpsControlVersion;
  }

  public Boolean getMpsStaticPartitioning() {
    return mpsStaticPartitioning;
  }

  public void setMpsStaticPartitioning(Boolean mpsStaticPartitioning) {
    this.mpsStaticPartitioning = mpsStaticPartitioning;
  }

  public int getIndex() {
    return index;
  }

  public void setIndex(int index) {
    this.index = index;
  }

  public String getUuid() {
    return uuid;
  }

  public void setUuid(String uuid) {
    this.uuid = uuid;
  }

  public String getProduct() {
    return product;
  }

  public void setProduct(String product) {
    this.product = product;
  }

  public GpuMode getMode() {
    return mode;
  }

  public void setMode(GpuMode mode) {
    this.mode = mode;
  }

  public int getSmCount() {
    return smCount;
  }

  public void setSmCount(int smCount) {
    this.smCount = smCount;
  }

  public Integer getMinPartitionSize() {
    return minPartitionSize;
  }

  public void setMinPartitionSize(Integer minPartitionSize) {
    this.minPartitionSize = minPartitionSize;
  }

  public Integer getCoscheduledAlignment() {
    return coscheduledAlignment;
  }

  public void setCoscheduledAlignment(Integer coscheduledAlignment) {
    this.coscheduledAlignment = coscheduledAlignment;
  }

  public List<SmGroup> getSmGroups() {
    return smGroups;
  }

  public void setSmGroups(List<SmGroup> smGroups) {
    this.smGroups = smGroups;
  }

  public List<MigInstance> getMigInstances() {
    return migInstances;
  }

  public void setMigInstances(List<MigInstance> migInstances) {
    this.migInstances = migInstances;
  }

  public Quantity getMemory() {
    return memory;
  }

  public void setMemory(Quantity memory) {
    this.memory = memory;
  }

  public GpuHealth getHealth() {
    return health;
  }

  public void setHealth(GpuHealth health) {
    this.health = health;
  }

  public String getHealthReason() {
    return healthReason;
  }

  public void setHealthReason(String healthReason) {
    this.healthReason = healthReason;
  }
}
