package io.smslice.e2e.cluster;

import java.time.Duration;
import java.time.Instant;

/**
 * Polls a condition until it holds, failing with what was awaited (and the daemon's log, when one
 * was watched).
 */
public final class Wait {
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  private Wait() {}

  public static void until(Duration limit, String what, Condition condition) {
    until(limit, what, null, condition);
  }

  static void until(Duration limit, String what, Daemon watched, Condition condition) {
    Instant deadline = Instant.now().plus(limit);
    Exception last = null;
    while (Instant.now().isBefore(deadline)) {
      if (watched != null && !watched.alive()) {
        throw new IllegalStateException(
            watched.name() + " exited while waiting for " + what + ":\n" + watched.tail(40));
      }
      try {
        if (condition.holds()) {
          return;
        }
        last = null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      } catch (Exception e) {
        last = e;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
    }
    String log = watched == null ? "" : "\n" + watched.name() + " log:\n" + watched.tail(40);
    throw new IllegalStateException(
        "no " + what + " within " + limit + (last == null ? "" : " (last: " + last + ")") + log);
  }
}
