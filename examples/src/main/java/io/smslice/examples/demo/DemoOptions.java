package io.smslice.examples.demo;

import java.nio.file.Path;
import java.util.List;

/**
 * @param seconds how long the workloads run before the demo stops (0: until Ctrl-C)
 * @param headless print the table as plain blocks every few seconds instead of redrawing a screen
 * @param repository the smslice checkout: crds/, examples/ and the built operator are read from it
 * @param backend the node side's GPU backend: auto (the GPU when there is one), cuda or simulated
 */
record DemoOptions(int seconds, boolean headless, Path repository, String backend) {

  static DemoOptions parse(List<String> args) {
    int seconds = 30;
    boolean headless = System.console() == null;
    Path repository = Path.of("").toAbsolutePath();
    String backend = "auto";
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      switch (kv[0]) {
        case "--seconds" -> seconds = Integer.parseInt(value(kv, arg));
        case "--headless" -> headless = true;
        case "--repository" -> repository = Path.of(value(kv, arg)).toAbsolutePath();
        case "--backend" -> backend = value(kv, arg);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + arg
                    + "; options: --seconds=N (0: until Ctrl-C), --headless, --repository=DIR,"
                    + " --backend=auto|cuda|simulated");
      }
    }
    if (seconds < 0) {
      throw new IllegalArgumentException("--seconds must be 0 (until Ctrl-C) or more");
    }
    if (!List.of("auto", "cuda", "simulated").contains(backend)) {
      throw new IllegalArgumentException(
          "--backend must be auto, cuda or simulated, not " + backend);
    }
    return new DemoOptions(seconds, headless, repository, backend);
  }

  private static String value(String[] kv, String arg) {
    if (kv.length < 2 || kv[1].isEmpty()) {
      throw new IllegalArgumentException(arg + " needs a value: " + kv[0] + "=...");
    }
    return kv[1];
  }
}
