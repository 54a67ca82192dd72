package io.smslice.agent.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * The agent's handle on one worker process: start, line requests, stop, exit notification. Each
 * request carries a number that its answer repeats, so that an answer arriving after its request
 * timed out is dropped, never taken for the next request's.
 */
public final class WorkerProcess implements AutoCloseable {
  static final String ARGUMENTS =
      "backend namespace name gpuUuid groups quotaBytes claimDir stateDir sharedDataBytes"
          + " maxSessions maxFrameBytes connectionLimits";
  private static final String EOF = "\0eof";
  private static final System.Logger LOG = System.getLogger(WorkerProcess.class.getName());
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final Process process;
  private final PrintStream in;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Duration requestTimeout;
  private volatile boolean stopping;
  private long lastRequest;

  private final Path tmp;

  private WorkerProcess(Process process, Path tmp, Duration requestTimeout) {
    this.process = process;
    this.tmp = tmp;
    this.requestTimeout = requestTimeout;
    this.in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
  }

  /**
   * Starts {@link WorkerMain} with this JVM's java and class path and waits until it serves.
   *
   * @param onUnexpectedExit told the exit code when the worker ends without being stopped
   */
  public static WorkerProcess start(
      List<String> args, Map<String, String> environment, IntConsumer onUnexpectedExit)
      throws IOException {
    return start(WorkerMain.class.getName(), args, environment, onUnexpectedExit, REQUEST_TIMEOUT);
  }

  /** As above with another main class (tests) and request timeout. */
  static WorkerProcess start(
      String mainClass,
      List<String> args,
      Map<String, String> environment,
      IntConsumer onUnexpectedExit,
      Duration requestTimeout)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_worker_%p.log");
    // JCuda unpacks its native library into java.io.tmpdir; workers started together must not
    // write the same file while another loads it (seen on the H200 machine: SIGBUS in dlopen).
    Path tmp =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "smslice-worker-");
    command.add("-Djava.io.tmpdir=" + tmp);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putAll(environment);
    WorkerProcess worker = new WorkerProcess(builder.start(), tmp, requestTimeout);
    Thread.ofPlatform()
        .daemon()
        .name("worker-" + args.get(1) + "-" + args.get(2))
        .start(() -> worker.read(onUnexpectedExit));
    String ready = worker.next(60);
    if (!ready.startsWith("ready ")) {
      // Keep what it said (a JVM crash report starts with '#' lines) for the log.
      StringBuilder said = new StringBuilder(ready);
      for (int i = 0; i < 40; i++) {
        String line = worker.lines.poll();
        if (line == null || line.equals(EOF)) {
          break;
        }
        said.append('\n').append(line);
      }
      worker.close();
      throw new IOException("worker did not start: " + said);
    }
    return worker;
  }

  private void read(IntConsumer onUnexpectedExit) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      // The process is gone; handled below.
    }
    lines.add(EOF);
    try {
      int code = process.waitFor();
      deleteTree(tmp);
      if (!stopping) {
        onUnexpectedExit.accept(code);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteTree(Path directory) {
    try (var paths = Files.walk(directory)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Left for the system's temp cleaner.
    }
  }

  private String next(long seconds) throws IOException {
    String line = poll(Duration.ofSeconds(seconds));
    if (line == null) {
      throw new IOException("worker did not answer within " + seconds + " s");
    }
    return line;
  }

  /** The next line, or null after {@code timeout}; throws when the worker has exited. */
  private String poll(Duration timeout) throws IOException {
    try {
      String line = lines.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
      if (EOF.equals(line)) {
        lines.add(EOF); // every later request fails at once too, not after its timeout
        throw new IOException("worker exited");
      }
      return line;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** Sends one command and returns its answer line (without the request number). */
  public synchronized String request(String command) throws IOException {
    long id = ++lastRequest;
    String prefix = id + " ";
    in.println(prefix + command);
    long deadline = System.nanoTime() + requestTimeout.toNanos();
    while (true) {
      String line = poll(Duration.ofNanos(deadline - System.nanoTime()));
      if (line == null) {
        throw new IOException(
            "worker did not answer '" + command + "' within " + requestTimeout.toMillis() + " ms");
      }
      if (line.startsWith(prefix)) {
        return line.substring(prefix.length());
      }
      LOG.log(
          System.Logger.Level.WARNING,
          "worker answered late or out of turn (dropped, waiting for request {0}): {1}",
          id,
          line);
    }
  }

  /** Asks the worker to stop, and kills it if it does not. */
  @Override
  public void close() {
    stopping = true;
    in.println("0 stop");
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }

  /** Kills the worker at once (its GPU context is dead anyway). */
  public void kill() {
    stopping = true;
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
