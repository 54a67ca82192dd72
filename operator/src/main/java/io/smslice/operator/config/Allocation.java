package io.smslice.operator.config;

/** How green SliceClaims reach pods (the chart's allocation.mode, smslice.allocation here). */
public enum Allocation {
  DEVICE_PLUGIN("devicePlugin"),
  DRA("dra");

  private final String configName;

  Allocation(String configName) {
    this.configName = configName;
  }

  public static Allocation of(OperatorConfig config) {
    return of(config.allocation());
  }

  public static Allocation of(String value) {
    for (Allocation a : values()) {
      if (a.configName.equals(value)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "smslice: smslice.allocation (SMSLICE_ALLOCATION) is '"
            + value
            + "': write devicePlugin or dra");
  }
}
