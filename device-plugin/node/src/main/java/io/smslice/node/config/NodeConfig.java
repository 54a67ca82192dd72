package io.smslice.node.config;

import io.smslice.api.v1alpha1.node.GpuMode;
import java.time.Duration;
import java.util.List;

/**
 * The node side's configuration, version v1, after flags, environment and file were merged.
 *
 * @param source where it came from, for log lines and error messages
 * @param defaultMode mode of every GPU no override names
 * @param mpsControlCommand the MPS control daemon's command line (tests use a script)
 * @param transparent unmodified CUDA programs in green slices (interposer + MPS)
 * @param allocation how green slices reach pods: device plugin or DRA
 * @param simulatedGpus how many GPUs the simulated backend shows
 */
public record NodeConfig(
    String source,
    Backend backend,
    RunMode runMode,
    Allocation allocation,
    ResourceNames resourceNames,
    GpuMode defaultMode,
    List<ModeOverride> overrides,
    NodePaths paths,
    Duration heartbeat,
    int metricsPort,
    List<String> mpsControlCommand,
    Transparent transparent,
    int simulatedGpus) {

  public NodeConfig {
    overrides = List.copyOf(overrides);
    mpsControlCommand = List.copyOf(mpsControlCommand);
  }

  /** The mode configured for one GPU. */
  public GpuMode modeOf(int index, String uuid) {
    return overrides.stream()
        .filter(o -> o.matches(index, uuid))
        .map(ModeOverride::mode)
        .findFirst()
        .orElse(defaultMode);
  }

  /**
   * Whether a GPU in this mode needs an MPS control daemon: MPS GPUs, and green GPUs whose claims
   * run in worker processes or whose transparent tenants share the GPU (green contexts partition
   * SMs across processes only under MPS).
   */
  public boolean needsMps(GpuMode mode) {
    return mode == GpuMode.MPS
        || (mode == GpuMode.Green && (runMode == RunMode.WORKER || transparent.enabled()));
  }
}
