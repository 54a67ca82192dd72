package io.smslice.agent.server;

/**
 * Limits on a claim socket's connections, apart from its sessions (which the claim's runtime caps).
 *
 * @param maxAttached unmodified programs' processes attached to the claim at once (each holds one
 *     idle connection for its life)
 */
public record ConnectionLimits(int maxAttached) {
  public static final ConnectionLimits DEFAULTS = new ConnectionLimits(256);

  public ConnectionLimits {
    if (maxAttached < 1) {
      throw new IllegalArgumentException("maxAttached must be at least 1, not " + maxAttached);
    }
  }

  /** One command-line word, for a worker process. */
  public String toArgument() {
    return Integer.toString(maxAttached);
  }

  public static ConnectionLimits parse(String argument) {
    String[] fields = argument.split(",");
    return new ConnectionLimits(Integer.parseInt(fields[0]));
  }
}
