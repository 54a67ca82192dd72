package io.smslice.examples.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Sends the log of everything in the demo's JVM (mock server, node side, agent) to a file, so the
 * terminal shows only the progress and the table. Problems still reach the table through the
 * kubelet's and the runtime's own lines.
 */
final class DemoLogging {
  private DemoLogging() {}

  static void toFile(Path file) throws IOException {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    Handler handler = new FileHandler(file.toString());
    handler.setFormatter(new SimpleFormatter());
    root.addHandler(handler);
    root.setLevel(Level.INFO);
  }
}
