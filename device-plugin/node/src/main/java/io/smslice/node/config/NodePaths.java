package io.smslice.node.config;

import io.smslice.agent.AgentOptions;
import io.smslice.agent.RunMode;
import io.smslice.agent.server.ClaimServer;
import java.nio.file.Path;

/**
 * Host directories the node side uses.
 *
 * @param devicePlugins the kubelet's device-plugin directory (kubelet.sock and plugin sockets)
 * @param run run directory: claim sockets under claims/, MPS pipes and logs under mps/
 * @param state persistent state (allocations remembered across restarts)
 * @param dev where device nodes are found (/dev; tests use a temporary directory)
 * @param proc where the driver's proc files are found (/proc)
 * @param kubeletPlugins the kubelet's plugins directory (the DRA plugin's socket goes under it)
 * @param pluginsRegistry the kubelet's plugins_registry directory (plugin registration sockets)
 * @param cdi where CDI spec files for DRA-prepared claims are written (containerd reads it)
 */
public record NodePaths(
    Path devicePlugins,
    Path run,
    Path state,
    Path dev,
    Path proc,
    Path kubeletPlugins,
    Path pluginsRegistry,
    Path cdi) {
  public static final NodePaths DEFAULTS =
      new NodePaths(
          Path.of("/var/lib/kubelet/device-plugins"),
          Path.of("/run/smslice"),
          Path.of("/var/lib/smslice"),
          Path.of("/dev"),
          Path.of("/proc"),
          Path.of("/var/lib/kubelet/plugins"),
          Path.of("/var/lib/kubelet/plugins_registry"),
          Path.of("/var/run/cdi"));

  /** A Unix socket path holds at most 107 bytes (sun_path is 108 with the final NUL). */
  public static final int UNIX_SOCKET_PATH_MAX = 107;

  /** Where the simulated backend reads injected GPU health problems, one file per GPU UUID. */
  public Path simulatedFaults() {
    return run.resolve("simulated-faults");
  }

  public Path mpsDirectory(String gpuUuid) {
    return run.resolve("mps").resolve(gpuUuid);
  }

  /**
   * The longest claim socket path the agent can make under {@link #run}: a 63-character namespace
   * and a 253-character claim, whose directory name the agent shortens.
   */
  public Path longestClaimSocket() {
    return AgentOptions.of("node", run, state, RunMode.IN_AGENT)
        .claimDirectory("n".repeat(63), "c".repeat(253))
        .resolve(ClaimServer.SOCKET_NAME);
  }
}
