package io.smslice.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulated GPU's time: a kernel's duration follows its work and its slice's SMs, is slept
 * rather than burnt on the CPU, disjoint slices do not delay each other, unpartitioned work does,
 * (memory-bandwidth interference: SimulatedClockTest).
 */
class SimulatedTimingTest {
  private static final byte[] PTX =
      ".visible .entry spin() { ret; }\n.visible .entry copy_u32() { ret; }\n"
          .getBytes(StandardCharsets.UTF_8);

  /** Cycles per nanosecond of the baselines: 250,000 cycles in 134.7 us. */
  private static final double CYCLES_PER_NANO = 250_000 / 134_700.0;

  private final SimulatedBackend backend = SimulatedBackend.h200(1);
  private final String gpu = backend.devices().getFirst().uuid();

  /** Runs one launch on its own stream and returns how long it took on the wall clock, in ns. */
  private static long timed(GreenContext context, String kernel, LaunchGeometry g, KernelArg... a)
      throws GpuException {
    GpuStream stream = context.createStream();
    GpuFunction function = context.loadModule(PTX).function(kernel);
    long start = System.nanoTime();
    stream.launch(function, g, List.of(a));
    stream.synchronize();
    return System.nanoTime() - start;
  }

  private static long spinNanos(long cycles) {
    return (long) (cycles / CYCLES_PER_NANO);
  }

  @Test
  void aSpinTakesItsCyclesPerWaveAndWavesFollowTheSlicesSms() throws Exception {
    GreenContext sixteen = backend.createGreenContext(gpu, List.of(0, 1));
    long cycles = 10_000_000; // ~5.4 ms a wave
    // 16 SMs x 8 resident blocks of 256 threads: 128 blocks are one wave, 129 are two.
    long oneWave = timed(sixteen, "spin", LaunchGeometry.of(128, 256), new KernelArg.I64(cycles));
    long twoWaves = timed(sixteen, "spin", LaunchGeometry.of(129, 256), new KernelArg.I64(cycles));
    assertThat(oneWave).isBetween(spinNanos(cycles), spinNanos(cycles) + 20_000_000);
    assertThat(twoWaves).isBetween(2 * spinNanos(cycles), 2 * spinNanos(cycles) + 20_000_000);
  }

  @Test
  void theWaitIsASleepNotCpuWork() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    GreenContext context = backend.createGreenContext(gpu, List.of(0));
    long cpuBefore = threads.getCurrentThreadCpuTime();
    long wall = timed(context, "spin", LaunchGeometry.of(8, 32), new KernelArg.I64(200_000_000));
    long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
    assertThat(wall).isGreaterThanOrEqualTo(spinNanos(200_000_000));
    assertThat(cpu).isLessThan(wall / 4);
  }

  @Test
  void disjointSlicesDoNotDelayEachOtherButUnpartitionedWorkDoes() throws Exception {
    assertThat(victimBesideAggressor()).isLessThan(spinNanos(1_000_000) + 20_000_000);
    backend.slicing(false);
    // Unpartitioned, the victim's kernel waits for the aggressor's 100 ms kernel to drain.
    assertThat(victimBesideAggressor()).isGreaterThan(60_000_000);
  }

  private long victimBesideAggressor() throws Exception {
    GreenContext victim = backend.createGreenContext(gpu, List.of(0, 1));
    GreenContext aggressor = backend.createGreenContext(gpu, List.of(2, 3, 4, 5));
    GpuStream stream = aggressor.createStream();
    stream.launch(
        aggressor.loadModule(PTX).function("spin"),
        LaunchGeometry.of(1056, 256),
        List.of(new KernelArg.I64((long) (100_000_000 * CYCLES_PER_NANO))));
    Thread running =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    stream.synchronize();
                  } catch (GpuException e) {
                    throw new IllegalStateException(e);
                  }
                });
    Thread.sleep(20);
    long took = timed(victim, "spin", LaunchGeometry.of(16, 256), new KernelArg.I64(1_000_000));
    running.join();
    return took;
  }
}
