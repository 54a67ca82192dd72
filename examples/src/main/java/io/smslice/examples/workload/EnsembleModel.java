package io.smslice.examples.workload;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One model of the safety-critical ensemble. Frames come every period on the wall clock (so the
 * three models, in separate pods, work on the same frame); for each, the model runs its inference
 * in its own slice and sends its answer and latency to the voter.
 */
final class EnsembleModel implements Workload {
  static final long PERIOD_MS = 20;
  static final int ELEMENTS = 4096;
  static final long SPIN_CYCLES = 400_000;
  static final long DEADLINE_US = 5_000;

  @Override
  public void run(WorkloadContext context) throws InterruptedException {
    String model =
        context
            .option("model", "MODEL")
            .orElseThrow(() -> new IllegalArgumentException("give the model's name: --model=a"));
    URI voter =
        URI.create(context.option("voter", "VOTER_URL").orElse("http://voter:8080") + "/ballot");
    long periodMs = context.longOption("period-ms", "FRAME_PERIOD_MS", PERIOD_MS);
    int n = (int) context.longOption("elements", "ELEMENTS", ELEMENTS);
    long spinCycles = context.longOption("spin-cycles", "SPIN_CYCLES", SPIN_CYCLES);
    context.stats().deadline(context.longOption("deadline-us", "DEADLINE_US", DEADLINE_US) * 1_000);
    // HTTP/1.1 on a kept-alive connection, its completions run on the client's own selector thread:
    // a ballot then costs a fraction of the host CPU that hand-offs to a worker pool took.
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(Runnable::run)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    try (GpuSession gpu = GpuSession.open(context);
        Arena arena = Arena.ofConfined()) {
      int sms = gpu.client.info().sms();
      Kernel add = gpu.kernel("vector_add");
      Kernel spin = gpu.kernel("spin");
      Buffer x = gpu.client.allocate(4L * n);
      Buffer w = gpu.client.allocate(4L * n);
      Buffer y = gpu.client.allocate(4L * n);
      MemorySegment host = arena.allocate(4L * n);
      for (int i = 0; i < n; i++) {
        host.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, i % 7);
      }
      gpu.client.write(gpu.stream, w, 0, host);
      int blocks = (n + 255) / 256;
      context.stats().smsSeen(gpu.smsSeen());
      long frames = 0;
      while (!context.stopping().getAsBoolean()) {
        long now = System.currentTimeMillis();
        long frame = now / periodMs + 1;
        Thread.sleep(frame * periodMs - now);
        long start = System.nanoTime();
        long modelledStart = gpu.modelledGpuNanos();
        for (int i = 0; i < n; i++) {
          host.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (frame + i) % 1000);
        }
        gpu.client.write(gpu.stream, x, 0, host);
        gpu.client.launch(
            add, gpu.stream, blocks, 256, Arg.buffer(x), Arg.buffer(w), Arg.buffer(y), Arg.i32(n));
        gpu.client.launch(spin, gpu.stream, sms, 32, Arg.i64(spinCycles));
        gpu.client.read(gpu.stream, y, 0, host);
        long latency = System.nanoTime() - start;
        gpu.recordFrame(context.stats(), start, modelledStart);
        long checksum = 0;
        for (int i = 0; i < n; i++) {
          checksum += (long) host.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
        }
        http.sendAsync(
            HttpRequest.newBuilder(voter)
                .timeout(Duration.ofMillis(periodMs * 5))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        new Ballot(model, frame, checksum, latency).encode()))
                .build(),
            HttpResponse.BodyHandlers.discarding());
        frames++;
        context.state().accept("running, model " + model + ", frame " + frames);
      }
    }
    context.state().accept("stopped");
  }
}
