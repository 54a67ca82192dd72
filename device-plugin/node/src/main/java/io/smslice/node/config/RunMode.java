package io.smslice.node.config;

/**
 * How the agent serves green-mode claims: one worker process per claim under the GPU's MPS server
 * (address-space isolation), or inside the agent's own CUDA context.
 */
public enum RunMode {
  WORKER("worker"),
  IN_AGENT("in-agent");

  private final String configName;

  RunMode(String configName) {
    this.configName = configName;
  }

  public String configName() {
    return configName;
  }
}
