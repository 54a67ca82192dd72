package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One upstream daemon of the local cluster, its output in a log file; stopped with SIGTERM, then
 * SIGKILL.
 */
public final class Daemon implements AutoCloseable {
  private final String name;
  private final Path log;
  private final List<String> command;
  private final Map<String, String> environment;
  private Process process;

  Daemon(String name, Path log, List<String> command, Map<String, String> environment) {
    this.name = name;
    this.log = log;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
  }

  Daemon start() throws IOException {
    Files.createDirectories(log.getParent());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    process = builder.start();
    return this;
  }

  public String name() {
    return name;
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** The last lines of its log, for a failure message. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops it as a supervisor would (SIGTERM, then SIGKILL after the grace period). */
  public void stop(Duration grace) {
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** Kills it without a chance to clean up, as a crash or an OOM kill would. */
  public void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Starts it again with the same command line, appending to the same log. */
  public void restart(Duration grace) throws IOException {
    stop(grace);
    start();
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(20));
  }
}
