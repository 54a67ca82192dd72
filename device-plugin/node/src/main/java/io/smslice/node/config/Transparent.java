package io.smslice.node.config;

import io.smslice.agent.guard.GpuGuard;
import java.nio.file.Path;

/**
 * Transparent slices: unmodified CUDA programs confined to their claim's SMs by the interposer
 * library, under the GPU's MPS server.
 *
 * @param enabled whether green GPUs serve them (then every green GPU runs an MPS daemon)
 * @param library the interposer as the node image ships it; copied to {@code installDirectory}
 * @param installDirectory host directory the library and the ld.so.preload file are installed in,
 *     mounted read-only into tenants' containers
 * @param mpsShm host tmpfs directory that is the MPS daemons' /dev/shm, mounted at tenants'
 *     /dev/shm so that they need no hostIPC
 * @param guard the interference guard's limits for every GPU's guard file
 *     (docs/interference-guard.md)
 * @param gating whether the guard waits for NVML to show pressure
 */
public record Transparent(
    boolean enabled,
    Path library,
    Path installDirectory,
    Path mpsShm,
    GpuGuard.Settings guard,
    GuardGating gating) {
  public static final Path DEFAULT_LIBRARY =
      Path.of("/opt/smslice/interposer/libsmslice-interposer.so");
  public static final Path DEFAULT_INSTALL_DIRECTORY = Path.of("/var/lib/smslice/interposer");
  public static final Path DEFAULT_MPS_SHM = Path.of("/run/smslice/mps/shm");

  public static Transparent off() {
    return new Transparent(
        false,
        DEFAULT_LIBRARY,
        DEFAULT_INSTALL_DIRECTORY,
        DEFAULT_MPS_SHM,
        GpuGuard.Settings.DEFAULTS,
        GuardGating.ALWAYS);
  }
}
