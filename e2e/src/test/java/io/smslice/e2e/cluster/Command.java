package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A command line run to completion: its exit status and output, or a failure that shows both. */
public record Command(
    List<String> argv, Map<String, String> environment, Path directory, Duration timeout) {

  public record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  public static Command of(String... argv) {
    return new Command(List.of(argv), Map.of(), null, Duration.ofMinutes(5));
  }

  public Command withEnvironment(Map<String, String> env) {
    return new Command(argv, env, directory, timeout);
  }

  public Command in(Path dir) {
    return new Command(argv, environment, dir, timeout);
  }

  public Command withTimeout(Duration limit) {
    return new Command(argv, environment, directory, limit);
  }

  public Command plus(List<String> more) {
    List<String> all = new ArrayList<>(argv);
    all.addAll(more);
    return new Command(all, environment, directory, timeout);
  }

  /** Runs it; standard input gets {@code input} when not null. */
  public Result run(String input) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(argv);
    builder.environment().putAll(environment);
    if (directory != null) {
      builder.directory(directory.toFile());
    }
    Process process = builder.start();
    var out = process.getInputStream();
    var err = process.getErrorStream();
    var stdout = new StringBuilder();
    var stderr = new StringBuilder();
    Thread outReader = Thread.ofVirtual().start(() -> copy(out, stdout));
    Thread errReader = Thread.ofVirtual().start(() -> copy(err, stderr));
    try (var in = process.getOutputStream()) {
      if (input != null) {
        in.write(input.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      throw new IOException(
          String.join(" ", argv) + ": no result within " + timeout + "\n" + stderr);
    }
    outReader.join();
    errReader.join();
    return new Result(process.exitValue(), stdout.toString(), stderr.toString());
  }

  public Result run() throws IOException, InterruptedException {
    return run(null);
  }

  /** Runs it and returns its standard output, failing with both outputs when it exits non-zero. */
  public String check() throws IOException, InterruptedException {
    return check(null);
  }

  public String check(String input) throws IOException, InterruptedException {
    Result result = run(input);
    if (!result.ok()) {
      throw new IOException(
          String.join(" ", argv)
              + " exited "
              + result.exitCode()
              + ":\n"
              + result.stderr()
              + result.stdout());
    }
    return result.stdout();
  }

  private static void copy(java.io.InputStream from, StringBuilder to) {
    try {
      String text = new String(from.readAllBytes(), StandardCharsets.UTF_8);
      synchronized (to) {
        to.append(text);
      }
    } catch (IOException e) {
      synchronized (to) {
        to.append("(output lost: ").append(e.getMessage()).append(')');
      }
    }
  }
}
