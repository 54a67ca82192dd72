package io.smslice.agent;

import io.smslice.agent.server.ConnectionLimits;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How the agent runs on a node.
 *
 * @param runDir claim sockets go to {@code runDir/claims/<namespace>/<claim>/agent.sock}
 * @param stateDir persistent state (tokens) that must survive agent restarts
 * @param sharedDataBytes size of each session's shared data area (copies go through it)
 * @param maxSessionsPerClaim connections one claim may have open at once
 * @param maxFrameBytes largest control request accepted (a module image, mostly)
 * @param connections limits on a claim socket's other connections (attached processes, ...)
 */
public record AgentOptions(
    String nodeName,
    Path runDir,
    Path stateDir,
    RunMode runMode,
    long sharedDataBytes,
    int maxSessionsPerClaim,
    int maxFrameBytes,
    ConnectionLimits connections) {

  public static final long DEFAULT_SHARED_DATA_BYTES = 64L << 20;
  public static final int DEFAULT_MAX_SESSIONS = 64;
  public static final int DEFAULT_MAX_FRAME_BYTES = 64 << 20;

  public AgentOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(runDir, "runDir");
    Objects.requireNonNull(stateDir, "stateDir");
    Objects.requireNonNull(runMode, "runMode");
    Objects.requireNonNull(connections, "connections");
    if (sharedDataBytes < 4096 || maxSessionsPerClaim < 1 || maxFrameBytes < 4096) {
      throw new IllegalArgumentException(
          "sharedDataBytes and maxFrameBytes must be at least 4096, maxSessionsPerClaim at least 1");
    }
  }

  /** With the default connection limits. */
  public AgentOptions(
      String nodeName,
      Path runDir,
      Path stateDir,
      RunMode runMode,
      long sharedDataBytes,
      int maxSessionsPerClaim,
      int maxFrameBytes) {
    this(
        nodeName,
        runDir,
        stateDir,
        runMode,
        sharedDataBytes,
        maxSessionsPerClaim,
        maxFrameBytes,
        ConnectionLimits.DEFAULTS);
  }

  /** The same options with other connection limits. */
  public AgentOptions withConnections(ConnectionLimits limits) {
    return new AgentOptions(
        nodeName,
        runDir,
        stateDir,
        runMode,
        sharedDataBytes,
        maxSessionsPerClaim,
        maxFrameBytes,
        limits);
  }

  /** The project's host paths (/run/smslice, /var/lib/smslice) and default limits. */
  public static AgentOptions defaults(String nodeName, RunMode runMode) {
    return of(nodeName, Path.of("/run/smslice"), Path.of("/var/lib/smslice"), runMode);
  }

  public static AgentOptions of(String nodeName, Path runDir, Path stateDir, RunMode runMode) {
    return new AgentOptions(
        nodeName,
        runDir,
        stateDir,
        runMode,
        DEFAULT_SHARED_DATA_BYTES,
        DEFAULT_MAX_SESSIONS,
        DEFAULT_MAX_FRAME_BYTES);
  }

  public Path claimDirectory(String namespace, String claim) {
    return runDir.resolve("claims").resolve(namespace).resolve(claim);
  }
}
