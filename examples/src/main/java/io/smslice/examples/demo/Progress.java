package io.smslice.examples.demo;

import java.io.PrintStream;
import java.util.Locale;

/** Start-up progress, one numbered line per step with its duration, so a slow step is visible. */
final class Progress {
  private final PrintStream out;
  private final int steps;
  private int step;
  private long started;

  Progress(PrintStream out, int steps) {
    this.out = out;
    this.steps = steps;
  }

  void begin(String what) {
    step++;
    started = System.nanoTime();
    out.printf(Locale.ROOT, "[%d/%d] %s ... ", step, steps, what);
    out.flush();
  }

  void done(String detail) {
    out.printf(
        Locale.ROOT,
        "%s (%.1f s)%n",
        detail.isEmpty() ? "done" : detail,
        (System.nanoTime() - started) / 1e9);
  }

  void note(String line) {
    out.println("      " + line);
  }
}
