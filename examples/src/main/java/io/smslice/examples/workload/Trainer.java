package io.smslice.examples.workload;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;

/**
 * The resize example: a training-like loop of steps that keeps running while its claim is resized.
 * It sizes each step's grid from the SMs its claim has now, and checks with {@code record_smid} how
 * many SMs its kernels really reach, so a resize shows up in its own numbers.
 */
final class Trainer implements Workload {
  @Override
  public void run(WorkloadContext context) {
    int n = (int) context.longOption("elements", "ELEMENTS", 1 << 18);
    long spinCycles = context.longOption("spin-cycles", "SPIN_CYCLES", 10_000_000);
    try (GpuSession gpu = GpuSession.open(context)) {
      Kernel add = gpu.kernel("vector_add");
      Kernel spin = gpu.kernel("spin");
      Buffer a = gpu.client.allocate(4L * n);
      Buffer b = gpu.client.allocate(4L * n);
      gpu.client.fill(gpu.stream, a, 0, 4L * n, (byte) 0);
      gpu.client.fill(gpu.stream, b, 0, 4L * n, (byte) 0);
      int blocks = (n + 255) / 256;
      int sms = gpu.claimSms();
      int first = sms;
      context.stats().smsSeen(gpu.smsSeen());
      for (long step = 1; !context.stopping().getAsBoolean(); step++) {
        long start = System.nanoTime();
        gpu.client.launch(
            add, gpu.stream, blocks, 256, Arg.buffer(a), Arg.buffer(b), Arg.buffer(b), Arg.i32(n));
        gpu.client.launch(spin, gpu.stream, 4 * sms, 256, Arg.i64(spinCycles));
        gpu.client.synchronize(gpu.stream);
        context.stats().record(System.nanoTime() - start);
        if (step % 25 == 0) {
          sms = gpu.claimSms();
          context.stats().smsSeen(gpu.smsSeen());
        }
        context
            .state()
            .accept(
                "running, step "
                    + step
                    + (sms == first ? "" : ", resized " + first + " -> " + sms + " SMs"));
      }
    }
    context.state().accept("stopped");
  }
}
