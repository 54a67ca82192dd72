package io.smslice.node.config;

/**
 * How green-mode SM slices reach pods: the device plugin (the operator places SliceClaims) or
 * Dynamic Resource Allocation (the kube-scheduler allocates the ResourceSlices this node publishes
 * and the DRA kubelet plugin prepares them). MIG and MPS GPUs use the device plugin either way.
 */
public enum Allocation {
  DEVICE_PLUGIN("devicePlugin"),
  DRA("dra");

  private final String configName;

  Allocation(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }
}
