package io.smslice.node.transparent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * MPS clients reach their server through /dev/shm. The MPS daemons this node starts use the node
 * container's /dev/shm, and tenants get the host directory {@code shm} mounted at theirs: the two
 * must be one tmpfs (the chart mounts it so), or tenants cannot reach the server without hostIPC.
 */
public final class SharedMemory {
  private static final Logger LOG = Logger.getLogger(SharedMemory.class.getName());
  private static final Path DEV_SHM = Path.of("/dev/shm");

  private SharedMemory() {}

  /** Logs, loudly, when {@code shm} is missing or is not this container's /dev/shm. */
  public static void check(Path shm) {
    try {
      if (!Files.isDirectory(shm)) {
        LOG.severe(
            shm
                + " does not exist: MPS clients in tenant containers cannot reach the MPS server;"
                + " mount the shared tmpfs there (the chart's init container does)");
        return;
      }
      Object host = Files.getAttribute(shm, "unix:dev");
      Object ours = Files.getAttribute(DEV_SHM, "unix:dev");
      if (!host.equals(ours)) {
        LOG.severe(
            shm
                + " is not this container's /dev/shm: the MPS daemons' shared memory is not the one"
                + " tenants get, so they cannot reach the MPS server; mount "
                + shm
                + " at /dev/shm in the node container");
      }
    } catch (IOException | UnsupportedOperationException e) {
      LOG.warning("cannot compare " + shm + " with /dev/shm: " + e.getMessage());
    }
  }
}
