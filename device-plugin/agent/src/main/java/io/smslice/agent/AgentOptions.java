package io.smslice.agent;

import io.smslice.agent.server.ConnectionLimits;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How the agent runs on a node.
 *
 * @param runDir claim sockets go to {@code runDir/claims/<claim directory name>/agent.sock}
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
    return runDir.resolve("claims").resolve(claimDirectoryName(namespace, claim));
  }

  /**
   * A short, stable file name for a claim: up to 20 characters of {@code <namespace>_<claim>} to be
   * read by people, a '-', and 20 hex digits (80 bits) of the SHA-256 of {@code
   * <namespace>/<claim>} to tell claims apart. At most 41 characters whatever the names (up to 63
   * and 253), so a socket path stays within the 107 bytes Unix allows: /run/smslice/claims/, 41,
   * /agent.sock is 72.
   */
  public static String claimDirectoryName(String namespace, String claim) {
    String readable = namespace + "_" + claim;
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest((namespace + "/" + claim).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return readable.substring(0, Math.min(20, readable.length()))
          + "-"
          + java.util.HexFormat.of().formatHex(digest).substring(0, 20);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
