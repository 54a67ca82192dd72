package io.smslice.gpu.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Memory-bandwidth interference, on the clock itself (the kernels' CPU effects of gigabytes of
 * copies would make the test slow): green contexts do not isolate it, as measured on the H200.
 */
class SimulatedClockTest {
  private static final int[] VICTIM = IntStream.range(0, 16).toArray();

  private static int[] hogOf(int sms) {
    return IntStream.range(16, 16 + sms).toArray();
  }

  @Test
  void theSlowdownPassesThroughTheMeasuredPoints() {
    assertThat(SimulatedClock.slowdown(0)).isEqualTo(1.0);
    assertThat(SimulatedClock.slowdown(24)).isCloseTo(1.54, within(1e-9));
    assertThat(SimulatedClock.slowdown(64)).isCloseTo(2.69, within(1e-9));
    assertThat(SimulatedClock.slowdown(116)).isCloseTo(3.6, within(1e-9));
    assertThat(SimulatedClock.slowdown(44)).isCloseTo(2.115, within(1e-9));
  }

  @Test
  void aMemoryBoundVictimSlowsBesideAMemoryBoundHogButAComputeBoundOneDoesNot() throws Exception {
    SimulatedClock clock = new SimulatedClock(132);
    Object victim = new Object();
    Object hog = new Object();
    SimulatedClock.Work read = new SimulatedClock.Work(0, 1, 0, 64L << 20);
    SimulatedClock.Work spin = new SimulatedClock.Work(16, 256, 250_000, 0);
    long readAlone = clock.run(victim, VICTIM, read);
    long spinAlone = clock.run(victim, VICTIM, spin);
    assertThat(readAlone).isCloseTo(61_400L, within(500L)); // the measured 61.2-61.6 us
    assertThat(spinAlone).isCloseTo(134_700L, within(500L)); // the measured 134.7 us

    for (int[] point : new int[][] {{24, 154}, {64, 269}, {116, 360}}) {
      // A fresh GPU each time: the interrupted hog's kernel stays booked, as a GPU's would run on.
      SimulatedClock gpu = new SimulatedClock(132);
      Thread hogging =
          Thread.ofPlatform()
              .start(
                  () -> gpu.run(hog, hogOf(point[0]), new SimulatedClock.Work(0, 1, 0, 1L << 40)));
      Thread.sleep(20);
      long beside = gpu.run(victim, VICTIM, read);
      assertThat((double) beside / readAlone)
          .as("hog of " + point[0] + " SMs")
          .isCloseTo(point[1] / 100.0, within(0.05));
      assertThat(gpu.run(victim, VICTIM, spin)).isEqualTo(spinAlone);
      hogging.interrupt();
      hogging.join();
    }
  }

  @Test
  void computeBoundKernelsSlowByThePowerCapWhileComputeFillsMostOfTheGpu() throws Exception {
    SimulatedClock.Work spin = new SimulatedClock.Work(16, 256, 250_000, 0);
    SimulatedClock.Work read = new SimulatedClock.Work(0, 1, 0, 64L << 20);
    long spinAlone = new SimulatedClock(132).run(new Object(), VICTIM, spin);
    long readAlone = new SimulatedClock(132).run(new Object(), VICTIM, read);
    // 100 + 16 = 116 SMs of compute reach the cap (the measured 116-SM GEMM neighbour); 96 + 16
    // not.
    for (int[] point : new int[][] {{100, 132}, {96, 100}, {0, 100}}) {
      SimulatedClock gpu = new SimulatedClock(132);
      Thread hogging = null;
      if (point[0] > 0) {
        SimulatedClock.Work hog = new SimulatedClock.Work(8L * point[0], 256, 1L << 40, 0);
        hogging = Thread.ofPlatform().start(() -> gpu.run(new Object(), hogOf(point[0]), hog));
        Thread.sleep(20);
      }
      assertThat((double) gpu.run(new Object(), VICTIM, spin) / spinAlone)
          .as("spin beside " + point[0] + " SMs of compute")
          .isCloseTo(point[1] / 100.0, within(0.02));
      assertThat((double) gpu.run(new Object(), VICTIM, read) / readAlone)
          .as("the memory clock is not capped")
          .isCloseTo(1.0, within(0.02));
      if (hogging != null) {
        hogging.interrupt();
        hogging.join();
      }
    }
  }

  @Test
  void aKernelOfFewBlocksCountsOnlyTheSmsItsBlocksOccupy() {
    SimulatedClock gpu = new SimulatedClock(132);
    int[] all = IntStream.range(0, 132).toArray();
    SimulatedClock.Work few = new SimulatedClock.Work(16, 32, 250_000, 0);
    SimulatedClock.Work full = new SimulatedClock.Work(132, 32, 250_000, 0);
    assertThat(gpu.run(new Object(), all, few)).isCloseTo(134_700L, within(500L));
    assertThat(gpu.run(new Object(), all, full)).isCloseTo(177_800L, within(500L));
  }

  @Test
  void aKernelShorterThanAHostWakeUpIsWaitedForWithoutSleeping() throws IOException {
    Path status = Path.of("/proc/thread-self/status");
    assumeTrue(Files.isReadable(status), "needs Linux's per-thread scheduler counts");
    SimulatedClock clock = new SimulatedClock(132);
    Object context = new Object();
    SimulatedClock.Work fiftyMicros = new SimulatedClock.Work(16, 32, 92_800, 0);
    clock.run(context, VICTIM, fiftyMicros); // class loading and the like, before counting

    long before = voluntarySwitches(status);
    for (int i = 0; i < 50; i++) {
      assertThat(clock.run(context, VICTIM, fiftyMicros)).isCloseTo(50_000L, within(1_000L));
    }
    long switches = voluntarySwitches(status) - before;

    // Sleeping for each kernel gave up the core 50 times, and on a busy host each wake-up waits
    // for a core again: far longer than the kernel itself.
    assertThat(switches).isLessThan(10);
  }

  private static long voluntarySwitches(Path status) throws IOException {
    return Files.readAllLines(status).stream()
        .filter(line -> line.startsWith("voluntary_ctxt_switches:"))
        .mapToLong(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
        .sum();
  }
}
