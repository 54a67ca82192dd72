package io.smslice.examples.workload;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

/**
 * A latency-critical detector: one frame every period, each a short chain of kernels (stage the
 * frame, copy it, compute, read the answer back), timed from submit to answer against a deadline.
 * Its slice is its own, so a batch job on the rest of the GPU must not move its p99. With {@code
 * --layers=N} the compute is N kernels one after another, as a network's layers are.
 */
final class Detector implements Workload {
  @Override
  public void run(WorkloadContext context) throws InterruptedException {
    long periodNanos = context.longOption("period-us", "PERIOD_US", 5_000) * 1_000;
    int n = (int) context.longOption("elements", "ELEMENTS", 1 << 16);
    long spinCycles = context.longOption("spin-cycles", "SPIN_CYCLES", 100_000);
    long layers = Math.max(1, context.longOption("layers", "LAYERS", 1));
    context.stats().deadline(context.longOption("deadline-us", "DEADLINE_US", 2_000) * 1_000);
    try (GpuSession gpu = GpuSession.open(context);
        Arena arena = Arena.ofConfined()) {
      int sms = gpu.client.info().sms();
      Kernel fill = gpu.kernel("fill_u32");
      Kernel copy = gpu.kernel("copy_u32");
      Kernel spin = gpu.kernel("spin");
      Kernel load = gpu.kernel("load_u32");
      Buffer frame = gpu.client.allocate(4L * n);
      Buffer features = gpu.client.allocate(4L * n);
      Buffer answer = gpu.client.allocate(4);
      MemorySegment host = arena.allocate(4);
      int blocks = (n + 255) / 256;
      long next = System.nanoTime();
      for (int f = 1; !context.stopping().getAsBoolean(); f++) {
        long start = System.nanoTime();
        long modelledStart = gpu.modelledGpuNanos();
        gpu.client.launch(fill, gpu.stream, blocks, 256, Arg.buffer(frame), Arg.i32(f), Arg.i32(n));
        gpu.client.launch(
            copy, gpu.stream, blocks, 256, Arg.buffer(frame), Arg.buffer(features), Arg.i32(n));
        for (long layer = 0; layer < layers; layer++) {
          gpu.client.launch(spin, gpu.stream, sms, 32, Arg.i64(spinCycles));
        }
        gpu.client.launch(
            load, gpu.stream, 1, 1, Arg.buffer(features, 4L * (n - 1)), Arg.buffer(answer));
        gpu.client.read(gpu.stream, answer, 0, host);
        gpu.recordFrame(context.stats(), start, modelledStart);
        int got = host.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        if (got != f) {
          throw new IllegalStateException("frame " + f + ": the GPU answered " + got);
        }
        if (f % 200 == 1) {
          context.stats().smsSeen(gpu.smsSeen());
        }
        context.state().accept("running, frame " + f);
        // Frames arrive at a fixed rate; a late frame is not made up for with a burst.
        next = Math.max(next + periodNanos, System.nanoTime());
        LockSupport.parkNanos(next - System.nanoTime());
      }
    }
    context.state().accept("stopped");
  }
}
