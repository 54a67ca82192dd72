package io.smslice.examples.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The simulated GPU's verdict on the ensemble beside the batch job, with the kernels, sizes and
 * deadline the two workloads use: a model's frames meet their deadline in its 16-SM slice beside
 * the batch job's 116 SMs, and miss it when the same work runs unpartitioned. Frames come every 5
 * ms here (20 ms in the demo) so that the test takes seconds.
 */
class SimulatedDeadlineTest {
  private static final byte[] PTX =
      ".visible .entry vector_add() { ret; }\n.visible .entry spin() { ret; }\n"
          .getBytes(StandardCharsets.UTF_8);
  private static final int FRAMES = 300;
  private static final long PERIOD_NANOS = 5_000_000;

  @Test
  void theEnsembleMeetsItsDeadlineWithSlicingAndMissesItWithout() throws Exception {
    double sliced = missRate(true);
    double unsliced = missRate(false);
    System.out.printf(
        "simulated ensemble beside the batch job: %.2f%% of %d frames missed with slicing, %.2f%%"
            + " without%n",
        100 * sliced, FRAMES, 100 * unsliced);
    assertThat(sliced).as("miss rate with slicing").isLessThan(0.01);
    assertThat(unsliced).as("miss rate without slicing").isGreaterThan(0.01);
  }

  private static double missRate(boolean slicing) throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    backend.slicing(slicing);
    String gpu = backend.devices().getFirst().uuid();
    GreenContext model = backend.createGreenContext(gpu, List.of(0, 1));
    GreenContext batch =
        backend.createGreenContext(gpu, IntStream.range(2, 16).boxed().toList()); // 116 SMs
    AtomicBoolean stop = new AtomicBoolean();
    Thread batchJob = Thread.ofPlatform().start(() -> runBatch(batch, stop));
    try {
      Thread.sleep(20);
      return runModel(model);
    } finally {
      stop.set(true);
      batchJob.join();
      backend.close();
    }
  }

  /** As {@link Batch}: vector_add and a slice-filling spin, IN_FLIGHT at a time, then a sync. */
  private static void runBatch(GreenContext context, AtomicBoolean stop) {
    try {
      int n = Batch.ELEMENTS;
      GpuFunction add = context.loadModule(PTX).function("vector_add");
      GpuFunction spin = context.loadModule(PTX).function("spin");
      GpuStream stream = context.createStream();
      long a = context.allocate(4L * n);
      long b = context.allocate(4L * n);
      long c = context.allocate(4L * n);
      List<KernelArg> addArgs = List.of(ptr(a), ptr(b), ptr(c), new KernelArg.I32(n));
      while (!stop.get()) {
        for (int i = 0; i < Batch.IN_FLIGHT; i++) {
          stream.launch(add, LaunchGeometry.of((n + 255) / 256, 256), addArgs);
          stream.launch(
              spin,
              LaunchGeometry.of(8 * context.smCount(), 256),
              List.of(new KernelArg.I64(Batch.SPIN_CYCLES)));
        }
        stream.synchronize();
      }
    } catch (GpuException e) {
      throw new IllegalStateException(e);
    }
  }

  /** As {@link EnsembleModel}: write the frame, vector_add, spin, read back; the miss rate. */
  private static double runModel(GreenContext context) throws Exception {
    int n = EnsembleModel.ELEMENTS;
    GpuFunction add = context.loadModule(PTX).function("vector_add");
    GpuFunction spin = context.loadModule(PTX).function("spin");
    GpuStream stream = context.createStream();
    long x = context.allocate(4L * n);
    long w = context.allocate(4L * n);
    long y = context.allocate(4L * n);
    MemorySegment host = Arena.ofAuto().allocate(4L * n);
    int misses = 0;
    long next = System.nanoTime();
    for (int frame = 0; frame < FRAMES; frame++) {
      next += PERIOD_NANOS;
      Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
      long start = SimulatedBackend.gpuNanos(context);
      stream.copyToDevice(x, host);
      stream.launch(
          add,
          LaunchGeometry.of((n + 255) / 256, 256),
          List.of(ptr(x), ptr(w), ptr(y), new KernelArg.I32(n)));
      stream.launch(
          spin,
          LaunchGeometry.of(context.smCount(), 32),
          List.of(new KernelArg.I64(EnsembleModel.SPIN_CYCLES)));
      stream.copyToHost(host, y);
      stream.synchronize();
      if (SimulatedBackend.gpuNanos(context) - start > EnsembleModel.DEADLINE_US * 1_000) {
        misses++;
      }
    }
    return (double) misses / FRAMES;
  }

  private static KernelArg ptr(long address) {
    return new KernelArg.Pointer(address);
  }
}
