package io.smslice.agent;

/** Where a claim's CUDA work runs. */
public enum RunMode {
  /** In the agent's process: all claims of a GPU share one address space. */
  IN_AGENT("in-agent"),
  /** In one worker process per claim, a client of the GPU's MPS server. */
  WORKER("worker");

  private final String configName;

  RunMode(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }

  /** The mode a config file names ({@code worker} or {@code in-agent}). */
  public static RunMode fromConfig(String name) {
    for (RunMode mode : values()) {
      if (mode.configName.equals(name)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("unknown runMode '" + name + "': use worker or in-agent");
  }
}
