package io.smslice.examples.demo;

import java.nio.file.Path;
import java.util.List;

/**
 * @param seconds how long the workloads run before the demo stops (0: until Ctrl-C)
 * @param headless print the table as plain blocks every few seconds instead of redrawing a screen
 * @param repository the smslice checkout: crds/, examples/ and the built operator are read from it
 * @param backend the node side's GPU backend: auto (the GPU when there is one), cuda or simulated
 * @param gpu the real-GPU demo: the cuda backend, transparent slices (MPS daemon, worker-mode
 *     agent, interposer) and the PyTorch ensemble's processes beside the Java examples
 * @param python the Python that runs the PyTorch ensemble's containers (with --gpu)
 */
record DemoOptions(
    int seconds, boolean headless, Path repository, String backend, boolean gpu, String python) {

  DemoOptions(int seconds, boolean headless, Path repository, String backend) {
    this(seconds, headless, repository, backend, false, "python3");
  }

  /** The interposer library as the build leaves it (the node image ships it on a real node). */
  Path interposer() {
    return repository.resolve(
        "device-plugin/interposer/target/classes/native/linux-x86-64/libsmslice-interposer.so");
  }

  static DemoOptions parse(List<String> args) {
    int seconds = 30;
    boolean headless = System.console() == null;
    Path repository = Path.of("").toAbsolutePath();
    String backend = null;
    boolean gpu = false;
    String python = "python3";
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      switch (kv[0]) {
        case "--seconds" -> seconds = Integer.parseInt(value(kv, arg));
        case "--headless" -> headless = true;
        case "--repository" -> repository = Path.of(value(kv, arg)).toAbsolutePath();
        case "--backend" -> backend = value(kv, arg);
        case "--gpu" -> gpu = true;
        case "--python" -> python = value(kv, arg);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + arg
                    + "; options: --seconds=N (0: until Ctrl-C), --headless, --repository=DIR,"
                    + " --backend=auto|cuda|simulated, --gpu, --python=PATH");
      }
    }
    if (seconds < 0) {
      throw new IllegalArgumentException("--seconds must be 0 (until Ctrl-C) or more");
    }
    if (backend != null && !List.of("auto", "cuda", "simulated").contains(backend)) {
      throw new IllegalArgumentException(
          "--backend must be auto, cuda or simulated, not " + backend);
    }
    if (gpu && backend != null && !backend.equals("cuda")) {
      throw new IllegalArgumentException(
          "--gpu runs on the real GPU (backend cuda); leave out --backend=" + backend);
    }
    if (!gpu && !python.equals("python3")) {
      throw new IllegalArgumentException("--python is used only with --gpu");
    }
    return new DemoOptions(
        seconds,
        headless,
        repository,
        gpu ? "cuda" : backend == null ? "auto" : backend,
        gpu,
        python);
  }

  private static String value(String[] kv, String arg) {
    if (kv.length < 2 || kv[1].isEmpty()) {
      throw new IllegalArgumentException(arg + " needs a value: " + kv[0] + "=...");
    }
    return kv[1];
  }
}
