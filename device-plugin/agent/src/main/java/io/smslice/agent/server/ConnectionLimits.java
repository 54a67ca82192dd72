package io.smslice.agent.server;

import java.time.Duration;

/**
 * Limits on a claim socket's connections, apart from its sessions (which the claim's runtime caps
 * at its maximum). Together they bound what a peer without a token can hold: at most {@code
 * maxUnauthenticated} connections, each for at most {@code helloDeadline}, each buffering at most
 * {@code firstFrameBytes}.
 *
 * @param firstFrameBytes largest first frame (HELLO or ATTACH, both small) accepted
 * @param maxUnauthenticated connections that have not sent their first frame yet
 * @param helloDeadline how long a connection may take to send its first frame
 * @param maxAttached unmodified programs' processes attached to the claim at once (each holds one
 *     idle connection for its life, by design; no idle timeout applies to them)
 * @param sessionIdleTimeout a session that sends no request and queues no ring record for this long
 *     is closed; zero: never (a tenant may keep device memory in an idle session on purpose)
 */
public record ConnectionLimits(
    int firstFrameBytes,
    int maxUnauthenticated,
    Duration helloDeadline,
    int maxAttached,
    Duration sessionIdleTimeout) {
  public static final ConnectionLimits DEFAULTS =
      new ConnectionLimits(4096, 16, Duration.ofSeconds(5), 256, Duration.ZERO);

  public ConnectionLimits {
    if (firstFrameBytes < 1024 || maxUnauthenticated < 1 || maxAttached < 1) {
      throw new IllegalArgumentException(
          "firstFrameBytes must be at least 1024, maxUnauthenticated and maxAttached at least 1");
    }
    if (helloDeadline.isNegative() || helloDeadline.isZero() || sessionIdleTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "helloDeadline must be positive and sessionIdleTimeout not negative");
    }
  }

  public ConnectionLimits withMaxAttached(int max) {
    return new ConnectionLimits(
        firstFrameBytes, maxUnauthenticated, helloDeadline, max, sessionIdleTimeout);
  }

  public ConnectionLimits withHelloDeadline(Duration deadline) {
    return new ConnectionLimits(
        firstFrameBytes, maxUnauthenticated, deadline, maxAttached, sessionIdleTimeout);
  }

  public ConnectionLimits withSessionIdleTimeout(Duration timeout) {
    return new ConnectionLimits(
        firstFrameBytes, maxUnauthenticated, helloDeadline, maxAttached, timeout);
  }

  /** One command-line word, for a worker process. */
  public String toArgument() {
    return firstFrameBytes
        + ","
        + maxUnauthenticated
        + ","
        + helloDeadline.toMillis()
        + ","
        + maxAttached
        + ","
        + sessionIdleTimeout.toMillis();
  }

  public static ConnectionLimits parse(String argument) {
    String[] fields = argument.split(",");
    if (fields.length != 5) {
      throw new IllegalArgumentException("not connection limits: " + argument);
    }
    return new ConnectionLimits(
        Integer.parseInt(fields[0]),
        Integer.parseInt(fields[1]),
        Duration.ofMillis(Long.parseLong(fields[2])),
        Integer.parseInt(fields[3]),
        Duration.ofMillis(Long.parseLong(fields[4])));
  }
}
