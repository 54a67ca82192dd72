package io.smslice.node.config;

import java.nio.file.Path;

/**
 * Host directories the node side uses.
 *
 * @param devicePlugins the kubelet's device-plugin directory (kubelet.sock and plugin sockets)
 * @param run run directory: claim sockets under claims/, MPS pipes and logs under mps/
 * @param state persistent state (allocations remembered across restarts)
 * @param dev where device nodes are found (/dev; tests use a temporary directory)
 * @param proc where the driver's proc files are found (/proc)
 */
public record NodePaths(Path devicePlugins, Path run, Path state, Path dev, Path proc) {
  public static final NodePaths DEFAULTS =
      new NodePaths(
          Path.of("/var/lib/kubelet/device-plugins"),
          Path.of("/run/smslice"),
          Path.of("/var/lib/smslice"),
          Path.of("/dev"),
          Path.of("/proc"));

  public Path mpsDirectory(String gpuUuid) {
    return run.resolve("mps").resolve(gpuUuid);
  }
}
