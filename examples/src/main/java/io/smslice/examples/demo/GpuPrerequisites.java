package io.smslice.examples.demo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What --gpu needs beyond a GPU, checked before anything starts so that a missing piece is one
 * clear message: the interposer library, the MPS control program, and a Python whose torch sees
 * CUDA (the PyTorch ensemble's containers run with it).
 */
final class GpuPrerequisites {
  private static final String MPS_CONTROL = "nvidia-cuda-mps-control";

  private GpuPrerequisites() {}

  /** Returns a line saying what was found; throws IllegalStateException saying what is missing. */
  static String check(DemoOptions options) throws InterruptedException {
    if (!Files.isRegularFile(options.interposer())) {
      throw new IllegalStateException(
          "--gpu needs the interposer library "
              + options.interposer()
              + ": build it with ./mvnw -pl device-plugin/interposer package");
    }
    if (onPath(MPS_CONTROL) == null) {
      throw new IllegalStateException(
          "--gpu needs "
              + MPS_CONTROL
              + " (NVIDIA's MPS control program) on the PATH: transparent slices partition SMs"
              + " across processes only under MPS");
    }
    String torch = torch(options.python());
    return "interposer, " + MPS_CONTROL + ", " + torch;
  }

  private static Path onPath(String program) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** torch's version and CUDA device count, as the given Python sees them. */
  private static String torch(String python) throws InterruptedException {
    String script =
        "import torch; print('torch %s, %d CUDA device(s)' % (torch.__version__,"
            + " torch.cuda.device_count() if torch.cuda.is_available() else 0))";
    String output;
    int code;
    try {
      Process p = new ProcessBuilder(python, "-c", script).redirectErrorStream(true).start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("--gpu: " + python + " did not import torch in 120 s");
      }
      output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      code = p.exitValue();
    } catch (IOException e) {
      throw new IllegalStateException(
          "--gpu runs the PyTorch ensemble with "
              + python
              + ", which cannot be started: "
              + e.getMessage()
              + " (set --python=PATH)");
    }
    String last = output.lines().reduce((a, b) -> b).orElse("");
    if (code != 0 || last.endsWith(" 0 CUDA device(s)")) {
      throw new IllegalStateException(
          "--gpu runs the PyTorch ensemble with "
              + python
              + ", whose torch does not see a CUDA GPU: "
              + last
              + " (install torch with CUDA, or set --python=PATH)");
    }
    return python + ": " + last;
  }
}
