package io.smslice.node.transparent;

import io.smslice.gpu.MpsServers;
import java.nio.file.Path;

/**
 * What a container of a transparent claim gets beside the claim socket: the interposer and the way
 * it is loaded, and the GPU's MPS server (pipe directory and the daemon's /dev/shm).
 *
 * @param shm host tmpfs directory the MPS daemons use as /dev/shm
 */
public record TransparentTenants(InterposerInstall interposer, MpsServers mps, Path shm) {
  /** Pod annotation: "false" opts a pod out (client-library path only), "true" asks for it. */
  public static final String ANNOTATION = "smslice.io/transparent";

  public static final String CONTAINER_PRELOAD = "/etc/ld.so.preload";
  public static final String CONTAINER_PIPE_DIR = "/run/smslice/mps/pipe";
  public static final String CONTAINER_SHM = "/dev/shm";
}
