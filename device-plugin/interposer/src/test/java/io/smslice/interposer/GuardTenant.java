package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

/**
 * A running guard_like under the interposer, a tenant of the guard's tests: its output lines as
 * they come. It launches count kernels of kernelMicros on the fake driver's timeline, gapMicros
 * apart, from each of its threads.
 */
final class GuardTenant {
  /** What the fake driver offers the tenant. */
  enum Driver {
    /** Stream memory operations: best-effort processes hold their streams on the GPU. */
    STREAM_WAITS,
    /** None: best-effort processes hold their launching threads. */
    NO_STREAM_WAITS
  }

  final Process process;
  final List<String> lines = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  /**
   * With fromTenantFile the guard's two variables are only in the claim's tenant.env (written in
   * dir). With a late frame (index and micros, else empty) it launches on a fixed schedule, one
   * kernel every gapMicros, that one late.
   */
  GuardTenant(
      Path dir,
      Driver driver,
      GuardFile guard,
      String priority,
      int count,
      long kernelMicros,
      long gapMicros,
      boolean fromTenantFile,
      int threads,
      long... lateFrame)
      throws IOException {
    Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("agent.sock"));
    if (fromTenantFile) {
      Path file = dir.resolve("tenant.env");
      Files.writeString(
          file, "SMSLICE_GUARD=" + guard.path + "\nSMSLICE_PRIORITY=" + priority + "\n");
      env.put("SMSLICE_TENANT_ENV", file.toString());
    } else {
      env.put("SMSLICE_GUARD", guard.path.toString());
      env.put("SMSLICE_PRIORITY", priority);
    }
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                ProgramRun.PROGRAMS.resolve("guard_like").toString(),
                String.valueOf(count),
                String.valueOf(kernelMicros),
                String.valueOf(gapMicros),
                String.valueOf(threads)));
    Arrays.stream(lateFrame).mapToObj(String::valueOf).forEach(command::add);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(k -> k.startsWith("SMSLICE_"));
    builder.environment().put("LD_PRELOAD", ProgramRun.LIBRARY.toString());
    builder.environment().put("LD_LIBRARY_PATH", ProgramRun.PROGRAMS.toString());
    builder.environment().putAll(env);
    if (driver == Driver.NO_STREAM_WAITS) {
      builder.environment().put("FAKECUDA_NO_STREAM_WAITS", "1");
    }
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    process = builder.start();
    Thread.ofVirtual()
        .start(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(process.getInputStream()))) {
                String line;
                while ((line = r.readLine()) != null) lines.add(line);
              } catch (IOException ignored) {
                // the process was killed
              }
              ended.complete(null);
            });
  }

  /** Polls until the condition holds, at most 20 s. */
  static void await(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  /** Waits for the program to finish; its launch lines as [index, result, began, returned]. */
  List<long[]> launches() throws Exception {
    return numbers("launch ").peek(l -> assertThat(l[1]).as("launch result").isZero()).toList();
  }

  /** When its kernels ran on the fake's timeline, as [index, start, end], once it finished. */
  List<long[]> kernels() throws Exception {
    return numbers("ran ").toList();
  }

  /** The stream waits it queued, once it finished. */
  long streamWaits() throws Exception {
    return numbers("waits ").findFirst().orElseThrow()[0];
  }

  /** The events it recorded (the guard's among them), once it finished. */
  long events() throws Exception {
    return numbers("events ").findFirst().orElseThrow()[0];
  }

  private java.util.stream.Stream<long[]> numbers(String prefix) throws Exception {
    ended.get(60, TimeUnit.SECONDS);
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s", lines).isZero();
    return lines.stream()
        .filter(l -> l.startsWith(prefix))
        .map(l -> Arrays.stream(l.substring(prefix.length()).split(" ")))
        .map(parts -> parts.mapToLong(Long::parseLong))
        .map(LongStream::toArray);
  }
}
