package io.smslice.node.config;

/** GPU backend: the real CUDA driver, a simulation, or the driver when one is present. */
public enum Backend {
  AUTO("auto"),
  CUDA("cuda"),
  SIMULATED("simulated");

  private final String configName;

  Backend(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }
}
