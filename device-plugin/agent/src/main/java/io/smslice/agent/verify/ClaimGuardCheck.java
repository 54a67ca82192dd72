package io.smslice.agent.verify;

import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.guard.GpuGuard;
import io.smslice.gpu.Backends;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.protocol.GuardLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The agent's own executors' part of the interference guard on a backend's first GPU: a best-effort
 * {@link ClaimGuard} keeping its spin kernels within the file's time bound, at the GPU time per
 * kernel it learns from its timed events, against that time measured directly with a pair of timed
 * events; and a latency-critical one marking its slot busy while its kernel runs. Prints a markdown
 * table. Usage: {@code ClaimGuardCheck <cuda|simulated> <kernels.ptx> <work dir>}.
 */
public final class ClaimGuardCheck {
  /** About 80 us at the H200's 1980 MHz (the spin kernel counts SM clock cycles). */
  private static final long CYCLES = 158_400;

  private static final int DEPTH = 64;
  private static final int LAUNCHES = 300;

  private ClaimGuardCheck() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ClaimGuardCheck <cuda|simulated> <kernels.ptx> <work dir>");
      System.exit(2);
    }
    byte[] kernels = Files.readAllBytes(Path.of(args[1]));
    Path dir = Files.createDirectories(Path.of(args[2]));
    GpuBackend backend = Backends.open(args[0]);
    GreenContext context =
        backend.createGreenContext(backend.devices().getFirst().uuid(), List.of(0, 1));
    // This thread plays the executor's part, whose thread has its claim's context current.
    context.makeCurrent();
    GpuFunction spin = context.loadModule(kernels).function("spin");
    GpuStream stream = context.createStream();
    try {
      long kernel = measured(context, stream, spin);
      System.out.printf(
          "| check | measured | expected |%n|---|---|---|%n"
              + "| spin kernel on %d SMs, timed events around 200 back to back | %.1f us | - |%n",
          context.smCount(), kernel / 1e3);
      for (Duration bound : List.of(Duration.ofNanos(kernel * 17 / 2), Duration.ofMillis(100))) {
        bounded(dir, bound, kernel, context, stream, spin);
      }
      critical(dir, context, stream, spin);
    } finally {
      stream.close();
      context.close();
      backend.close();
    }
  }

  private static void launch(GpuStream stream, GpuFunction spin) throws Exception {
    stream.launch(spin, LaunchGeometry.of(16, 32), List.of(new KernelArg.I64(CYCLES)));
  }

  /** One kernel's GPU time: two timed events around 200 kernels queued back to back. */
  private static long measured(GreenContext context, GpuStream stream, GpuFunction spin)
      throws Exception {
    for (int i = 0; i < 20; i++) {
      launch(stream, spin);
    }
    stream.synchronize();
    try (GpuEvent start = context.createTimedEvent();
        GpuEvent end = context.createTimedEvent()) {
      stream.record(start);
      for (int i = 0; i < 200; i++) {
        launch(stream, spin);
      }
      stream.record(end);
      end.synchronize();
      return end.nanosSince(start) / 200;
    }
  }

  private static void bounded(
      Path dir,
      Duration bound,
      long kernel,
      GreenContext context,
      GpuStream stream,
      GpuFunction spin)
      throws Exception {
    GpuGuard.Settings settings =
        new GpuGuard.Settings(Duration.ofSeconds(1), 1.0, Duration.ofSeconds(1), DEPTH, bound);
    long max = 0;
    int estimate;
    try (GpuGuard gpu = GpuGuard.create(dir.resolve("guard-" + bound.toNanos()), settings);
        ClaimGuard guard = gpu.join("verify/trainer", GuardLayout.ROLE_BEST_EFFORT).orElseThrow()) {
      gpu.enable(true);
      for (int i = 0; i < LAUNCHES; i++) {
        guard.beforeQueue();
        launch(stream, spin);
        guard.queued(stream, context);
        GpuGuard.Slot slot = gpu.slots().getFirst();
        max = Math.max(max, slot.launched() - slot.completed());
      }
      stream.synchronize();
      estimate = gpu.slots().getFirst().launchNanos();
    }
    long fit = Math.min(DEPTH, bound.toNanos() / Math.max(1, estimate));
    System.out.printf(
        "| best-effort executor, %.0f us bound, depth %d: estimate per kernel (slot launch_us) |"
            + " %.1f us (%.3f of measured) | within 0.95-1.05 of measured |%n",
        bound.toNanos() / 1e3, DEPTH, estimate / 1e3, estimate / (double) kernel);
    System.out.printf(
        "| the same: most kernels in flight | %d | %d (the bound over the estimate, within the"
            + " depth), plus the one being queued |%n",
        max, fit);
  }

  private static void critical(Path dir, GreenContext context, GpuStream stream, GpuFunction spin)
      throws Exception {
    GpuGuard.Settings settings = GpuGuard.Settings.DEFAULTS;
    try (GpuGuard gpu = GpuGuard.create(dir.resolve("guard-critical"), settings);
        ClaimGuard guard =
            gpu.join("verify/victim", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow()) {
      gpu.enable(true);
      guard.beforeQueue();
      launch(stream, spin);
      guard.queued(stream, context);
      boolean busy = gpu.slots().getFirst().busy();
      guard.awaitOldest();
      boolean after = gpu.slots().getFirst().busy();
      System.out.printf(
          "| latency-critical executor: slot busy while its kernel runs / after it ended |"
              + " %s / %s | true / false |%n",
          busy, after);
    }
  }
}
