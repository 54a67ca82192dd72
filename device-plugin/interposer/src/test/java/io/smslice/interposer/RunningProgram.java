package io.smslice.interposer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A test program started as ProgramRun starts one, watched while it runs. */
final class RunningProgram {
  private final Process process;
  private final Path stderr;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private RunningProgram(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(
                              process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l = in.readLine(); l != null; l = in.readLine()) lines.add(l);
                  } catch (IOException e) {
                    // the program ended
                  }
                });
  }

  static RunningProgram start(Map<String, String> env, String... command) throws IOException {
    ProcessBuilder builder = ProgramRun.builder(env, command);
    Path err = Files.createTempFile("interposer-stderr", ".txt");
    builder.redirectError(err.toFile());
    return new RunningProgram(builder.start(), err);
  }

  long pid() {
    return process.pid();
  }

  /** The first line starting with prefix, waiting for it up to timeout. */
  String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      for (String l : lines) if (l.startsWith(prefix)) return l;
      Thread.sleep(20);
    }
    throw new AssertionError("no line " + prefix + " within " + timeout + " in " + lines);
  }

  /** Waits for the end (killing the program past timeout) and returns what it printed. */
  ProgramRun finish(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError("test program did not finish within " + timeout + ": " + lines);
    }
    reader.join(5000);
    try {
      String err = Files.readString(stderr);
      Files.delete(stderr);
      return new ProgramRun(process.exitValue(), List.copyOf(lines), err);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
