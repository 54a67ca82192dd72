package io.smslice.node.mps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MPS control program's version, as {@code nvidia-cuda-mps-control -v} prints it (13000 for
 * CUDA 13.0; static SM partitioning needs 13010). Unknown when the program is missing, fails, or
 * prints nothing the parser recognises: then the SliceNode leaves the fields out.
 */
public final class MpsControlVersion {
  private static final Logger LOG = Logger.getLogger(MpsControlVersion.class.getName());

  /** First version whose daemon offers static SM partitioning ({@code -S}). */
  public static final int STATIC_PARTITIONING = 13010;

  private static final Pattern NUMBER = Pattern.compile("(?<![\\d.])(\\d{5})(?![\\d.])");
  private static final Pattern DOTTED =
      Pattern.compile("(?<![\\d.])(\\d{2})\\.(\\d)(?:\\.\\d+)?(?![\\d.])");

  private MpsControlVersion() {}

  /** Runs {@code command -v}, waiting at most five seconds. */
  public static Optional<Integer> query(List<String> command) {
    List<String> argv = new ArrayList<>(command);
    argv.add("-v");
    try {
      Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
      p.getOutputStream().close();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        LOG.warning(String.join(" ", argv) + " did not answer in 5 s; MPS version unknown");
        return Optional.empty();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Optional<Integer> version = p.exitValue() == 0 ? parse(out) : Optional.empty();
      if (version.isEmpty()) {
        LOG.warning(
            "MPS version unknown: "
                + String.join(" ", argv)
                + " exited "
                + p.exitValue()
                + " with: "
                + out.strip());
      }
      return version;
    } catch (IOException e) {
      LOG.warning("MPS version unknown: " + e.getMessage());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** 13000 from "13000" or "version 13000"; 13010 from "13.1" (CUDA's major.minor). */
  static Optional<Integer> parse(String output) {
    Matcher m = NUMBER.matcher(output);
    if (m.find()) {
      return Optional.of(Integer.parseInt(m.group(1)));
    }
    m = DOTTED.matcher(output);
    if (m.find()) {
      return Optional.of(Integer.parseInt(m.group(1)) * 1000 + Integer.parseInt(m.group(2)) * 10);
    }
    return Optional.empty();
  }

  public static boolean staticPartitioning(int version) {
    return version >= STATIC_PARTITIONING;
  }
}
