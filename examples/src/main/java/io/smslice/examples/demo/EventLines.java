package io.smslice.examples.demo;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The kubelet's and the runtime's lines for the table: a redrawn screen shows the latest few, and
 * plain-text blocks, which follow each other in a log, show each line once.
 */
final class EventLines {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private int printed;

  void add(String line) {
    lines.add(line);
  }

  /** The last {@code n} lines, each on its own line after a line break; "" when there are none. */
  String latest(int n) {
    return joined(lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }

  /** The lines added since the last call, as {@link #latest} formats them. */
  synchronized String sinceLastCall() {
    int end = lines.size();
    String out = joined(lines.subList(printed, end));
    printed = end;
    return out;
  }

  private static String joined(List<String> some) {
    return some.isEmpty() ? "" : System.lineSeparator() + String.join(System.lineSeparator(), some);
  }
}
