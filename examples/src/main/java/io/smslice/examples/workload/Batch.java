package io.smslice.examples.workload;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;

/**
 * A best-effort batch job: large kernels back to back, as many as its slice can run, queued a few
 * at a time so the slice never idles. With {@code --launches=N} it ends after N launches (a Job);
 * without, it runs until stopped.
 */
final class Batch implements Workload {
  static final int IN_FLIGHT = 4;
  static final int ELEMENTS = 1 << 18;

  /**
   * About 10.8 ms a kernel on an H200 (1.86 cycles/ns in the baselines), as long as the measured
   * aggressor's: a training step's kernels take milliseconds, not microseconds.
   */
  static final long SPIN_CYCLES = 20_000_000;

  @Override
  public void run(WorkloadContext context) {
    long total = context.longOption("launches", "LAUNCHES", 0);
    int n = (int) context.longOption("elements", "ELEMENTS", ELEMENTS);
    long spinCycles = context.longOption("spin-cycles", "SPIN_CYCLES", SPIN_CYCLES);
    try (GpuSession gpu = GpuSession.open(context)) {
      int sms = gpu.client.info().sms();
      Kernel add = gpu.kernel("vector_add");
      Kernel spin = gpu.kernel("spin");
      Buffer a = gpu.client.allocate(4L * n);
      Buffer b = gpu.client.allocate(4L * n);
      Buffer c = gpu.client.allocate(4L * n);
      gpu.client.fill(gpu.stream, a, 0, 4L * n, (byte) 0);
      gpu.client.fill(gpu.stream, b, 0, 4L * n, (byte) 0);
      int blocks = (n + 255) / 256;
      long done = 0;
      context.stats().smsSeen(gpu.smsSeen());
      while (!context.stopping().getAsBoolean() && (total == 0 || done < total)) {
        long start = System.nanoTime();
        for (int i = 0; i < IN_FLIGHT; i++) {
          gpu.client.launch(
              add,
              gpu.stream,
              blocks,
              256,
              Arg.buffer(a),
              Arg.buffer(b),
              Arg.buffer(c),
              Arg.i32(n));
          // Eight resident blocks of 256 threads per SM: every SM of the slice busy.
          gpu.client.launch(spin, gpu.stream, 8 * sms, 256, Arg.i64(spinCycles));
        }
        gpu.client.synchronize(gpu.stream);
        long each = (System.nanoTime() - start) / IN_FLIGHT;
        for (int i = 0; i < IN_FLIGHT; i++) {
          context.stats().record(each);
        }
        done += IN_FLIGHT;
        context.state().accept("running, launch " + done + (total == 0 ? "" : "/" + total));
      }
      context
          .state()
          .accept(total != 0 && done >= total ? "done, " + done + " launches" : "stopped");
    }
  }
}
