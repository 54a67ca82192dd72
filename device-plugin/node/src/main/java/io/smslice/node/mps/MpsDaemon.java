package io.smslice.node.mps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One GPU's MPS control daemon, run in the foreground ({@code -f}) as a child process so that its
 * exit is seen at once, and started again after a back-off when it dies.
 */
final class MpsDaemon {
  private static final Logger LOG = Logger.getLogger(MpsDaemon.class.getName());
  private static final Duration MIN_BACKOFF = Duration.ofMillis(500);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final Duration STABLE = Duration.ofSeconds(60);

  private final String gpuUuid;
  private final List<String> command;
  private final Path pipe;
  private final Path log;
  private final Runnable onStart;
  private Process process;
  private Instant startedAt;
  private Duration backoff = MIN_BACKOFF;
  private boolean stopping;
  private Thread restarter;

  MpsDaemon(String gpuUuid, List<String> command, Path directory, Runnable onStart) {
    this.gpuUuid = gpuUuid;
    this.command = List.copyOf(command);
    this.pipe = directory.resolve("pipe");
    this.log = directory.resolve("log");
    this.onStart = onStart;
  }

  Path pipe() {
    return pipe;
  }

  synchronized boolean running() {
    return process != null && process.isAlive();
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  synchronized void start() throws IOException {
    stopping = false;
    Files.createDirectories(pipe);
    Files.createDirectories(log);
    List<String> daemon = new ArrayList<>(command);
    daemon.add("-f");
    ProcessBuilder pb = new ProcessBuilder(daemon);
    environment(pb.environment());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.resolve("control-daemon.out").toFile()));
    process = pb.start();
    startedAt = Instant.now();
    onStart.run();
    LOG.info("MPS control daemon for " + gpuUuid + " started, pid " + process.pid());
    Process watched = process;
    watched.onExit().thenRun(() -> exited(watched));
  }

  private void environment(Map<String, String> env) {
    env.put("CUDA_VISIBLE_DEVICES", gpuUuid);
    env.put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
    env.put("CUDA_MPS_LOG_DIRECTORY", log.toString());
  }

  private synchronized void exited(Process p) {
    if (stopping || p != process) {
      return;
    }
    if (Duration.between(startedAt, Instant.now()).compareTo(STABLE) > 0) {
      backoff = MIN_BACKOFF;
    }
    Duration wait = backoff;
    backoff =
        backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    LOG.warning(
        "MPS control daemon for "
            + gpuUuid
            + " exited with "
            + p.exitValue()
            + " (see "
            + log
            + "); starting it again in "
            + wait.toMillis()
            + " ms");
    restarter =
        Thread.ofPlatform()
            .daemon()
            .name("mps-restart-" + gpuUuid)
            .start(
                () -> {
                  try {
                    Thread.sleep(wait);
                    synchronized (this) {
                      if (!stopping && !running()) {
                        start();
                      }
                    }
                  } catch (InterruptedException e) {
                    // stopped while waiting
                  } catch (IOException | RuntimeException e) {
                    LOG.log(Level.WARNING, "starting MPS daemon for " + gpuUuid + " failed", e);
                    exited(process);
                  }
                });
  }

  /**
   * Waits until the daemon has made its control pipe: a client started before that finds no daemon
   * and runs without MPS, time-sliced beside the GPU's MPS clients instead of partitioned with
   * them.
   */
  void awaitReady(Duration timeout) throws IOException {
    Path control = pipe.resolve("control");
    Instant deadline = Instant.now().plus(timeout);
    while (!Files.exists(control)) {
      if (!running()) {
        throw new IOException(
            "the MPS control daemon for " + gpuUuid + " exited before it made " + control);
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IOException(
            "the MPS control daemon for "
                + gpuUuid
                + " made no "
                + control
                + " within "
                + timeout.toSeconds()
                + " s (see "
                + log
                + ")");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
  }

  /**
   * Asks the daemon to quit (as {@code echo quit | nvidia-cuda-mps-control} does), then ends it.
   */
  void stop() {
    Process p;
    synchronized (this) {
      stopping = true;
      if (restarter != null) {
        restarter.interrupt();
      }
      p = process;
    }
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      ProcessBuilder pb = new ProcessBuilder(command);
      environment(pb.environment());
      pb.redirectErrorStream(true);
      pb.redirectOutput(
          ProcessBuilder.Redirect.appendTo(log.resolve("control-client.out").toFile()));
      Process quit = pb.start();
      quit.getOutputStream().write("quit\n".getBytes());
      quit.getOutputStream().close();
      quit.waitFor(5, TimeUnit.SECONDS);
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroy();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      }
      // A daemon that did not quit cleanly leaves its socket; the next one's readiness must not
      // be read from it.
      if (!p.isAlive()) {
        Files.deleteIfExists(pipe.resolve("control"));
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "quit command for " + gpuUuid + " failed; terminating the daemon", e);
      p.destroy();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
