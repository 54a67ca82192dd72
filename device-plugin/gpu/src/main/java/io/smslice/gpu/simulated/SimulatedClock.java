package io.smslice.gpu.simulated;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * GPU time on a simulated GPU: each SM is a lane that a kernel books from when all its lanes are
 * free until its modelled duration has passed, and the kernel's caller sleeps until then (a wait of
 * at most a quarter of a millisecond is spun). A green context books only its own SMs, so slices
 * never delay each other; unpartitioned, every kernel books every SM, so one context's long kernel
 * delays everyone's. Memory-bound kernels also slow by the bandwidth that memory-bound kernels of
 * other contexts use at the same time, which SM partitioning does not isolate, and compute-bound
 * kernels slow by the GPU's power cap while compute-bound kernels fill most of its SMs.
 *
 * <p>Calibrated from the H200 GPU machine: kernel speed from
 * device-plugin/agent/verify/results/2026-11-30-h200-baselines.md, memory bandwidth and its
 * interference from the project's bandwidth measurement there (16-SM victim beside 24/64/116-SM HBM
 * hogs; docs/demo.md gives the numbers), the power cap from the interference-guard runs
 * (device-plugin/interposer/verify/results/README.md). Each constant says which number it comes
 * from.
 */
final class SimulatedClock {
  /** 250,000 clock64 cycles of the baselines' 16-SM victim took 134.7 us (p50, alone). */
  static final double CYCLES_PER_NANO = 250_000 / 134_700.0;

  /**
   * A 16-SM streaming read of 64 MiB took 61.2-61.6 us alone (p50,
   * device-plugin/agent/verify/results/2026-12-01-h200-bandwidth.md): about 68 bytes/ns per SM.
   */
  static final double BYTES_PER_NANO_PER_SM = (64.0 * (1 << 20)) / 61_400.0 / 16;

  /** The 116-SM copy kernel there moved 3833-3849 GB/s: the GPU's HBM bandwidth, ~3840 B/ns. */
  static final double GPU_BYTES_PER_NANO = 3_840;

  /**
   * Slowdown of that memory-bound 16-SM victim beside copy kernels of 0 / 24 / 64 / 116 SMs (p50,
   * mean of the two runs: 1.0 / 1.54 / 2.69 / 3.6x); the compute-bound victim measured 1.01-1.06x
   * and is not slowed.
   */
  private static final int[] HOG_SMS = {0, 24, 64, 116};

  private static final double[] HOG_SLOWDOWN = {1.0, 1.54, 2.69, 3.6};

  /**
   * A 116-SM bf16 GEMM neighbour held the H200 at its 700 W cap and every SM's clock fell from 1980
   * to about 1500 MHz (1470-1560 in guard run 1); a 16-SM victim alone ran at 1980 MHz. So a
   * compute-bound kernel that starts while compute-bound kernels (its own included) occupy at least
   * this share of the GPU's SMs runs 1980/1500 longer; fewer SMs were not measured and are taken to
   * stay under the cap. Memory-bound kernels keep their speed: the memory clock stayed at 3201 MHz
   * at the cap.
   */
  static final double POWER_CAP_SHARE = 116 / 132.0;

  static final double CAPPED_SLOWDOWN = 1980 / 1500.0;

  /** Resident blocks per SM (Hopper limits; registers and shared memory are not modelled). */
  static final int THREADS_PER_SM = 2048;

  static final int BLOCKS_PER_SM = 32;

  /** Kernels up to this long are waited for by spinning, longer ones asleep. */
  static final long SPIN_NANOS = 100_000;

  /** The longest one simulated kernel may take, so that absurd launch sizes cannot hang a test. */
  static final long MAX_KERNEL_NANOS = 250_000_000L;

  private final long[] freeAt;
  private final List<Booking> memoryBound = new ArrayList<>();
  private final List<Booking> computeBound = new ArrayList<>();
  private final int capSms;
  private volatile boolean partitioned = true;

  SimulatedClock(int sms) {
    this.freeAt = new long[sms];
    this.capSms = (int) Math.round(sms * POWER_CAP_SHARE);
  }

  /** The work of one kernel: clock cycles per wave of blocks, or bytes it moves through HBM. */
  record Work(long blocks, long threadsPerBlock, long cyclesPerWave, long bytes) {
    static final Work NONE = new Work(0, 1, 0, 0);

    boolean memoryBound() {
      return bytes > 0;
    }
  }

  private record Booking(Object context, int sms, long start, long end) {}

  void partitioned(boolean on) {
    partitioned = on;
  }

  /**
   * Books the kernel's lanes and sleeps until it has finished on the simulated GPU. Returns its
   * modelled GPU-side latency in nanoseconds: the wait for its SMs plus its duration (0 for work
   * that takes no modelled time).
   */
  long run(Object context, int[] smIds, Work work) {
    if (work.cyclesPerWave() <= 0 && work.bytes() <= 0) {
      return 0;
    }
    long end;
    long requested;
    synchronized (this) {
      int[] lanes = partitioned ? smIds : allSms();
      long now = System.nanoTime();
      requested = now;
      long start = now;
      for (int sm : lanes) {
        start = Math.max(start, freeAt[sm]);
      }
      end = start + duration(work, lanes.length, start, context);
      for (int sm : lanes) {
        freeAt[sm] = end;
      }
      if (work.memoryBound()) {
        memoryBound.removeIf(b -> b.end() <= now);
        memoryBound.add(new Booking(context, lanes.length, start, end));
      } else {
        computeBound.removeIf(b -> b.end() <= now);
        computeBound.add(new Booking(context, busySms(work, lanes.length), start, end));
      }
    }
    sleepUntil(end);
    return end - requested;
  }

  private int[] allSms() {
    int[] all = new int[freeAt.length];
    Arrays.setAll(all, i -> i);
    return all;
  }

  private long duration(Work work, int sms, long start, Object context) {
    double nanos;
    if (work.memoryBound()) {
      double rate = Math.min(GPU_BYTES_PER_NANO, sms * BYTES_PER_NANO_PER_SM);
      nanos = work.bytes() / rate * slowdown(neighbourSms(context, start));
    } else {
      long resident =
          Math.max(
              1, Math.min(BLOCKS_PER_SM, THREADS_PER_SM / Math.max(1L, work.threadsPerBlock())));
      long waves = Math.max(1, ceilDiv(work.blocks(), sms * resident));
      nanos = (double) waves * work.cyclesPerWave() / CYCLES_PER_NANO;
      if (busySms(work, sms) + computeSmsAt(start) >= capSms) {
        nanos *= CAPPED_SLOWDOWN;
      }
    }
    return (long) Math.min(MAX_KERNEL_NANOS, Math.max(0, nanos));
  }

  /** SMs of other contexts' memory-bound kernels still running at {@code start}. */
  private int neighbourSms(Object context, long start) {
    int sms = 0;
    for (Booking b : memoryBound) {
      if (b.context() != context && b.start() <= start && b.end() > start) {
        sms += b.sms();
      }
    }
    return sms;
  }

  /** The SMs a compute-bound kernel's blocks occupy: a kernel of fewer blocks leaves SMs idle. */
  private static int busySms(Work work, int sms) {
    return (int) Math.min(sms, Math.max(1, work.blocks()));
  }

  /** SMs of compute-bound kernels (any context's) running at {@code start}. */
  private int computeSmsAt(long start) {
    int sms = 0;
    for (Booking b : computeBound) {
      if (b.start() <= start && b.end() > start) {
        sms += b.sms();
      }
    }
    return sms;
  }

  /** Piecewise-linear in the neighbours' SMs through the measured points, flat beyond them. */
  static double slowdown(int neighbourSms) {
    for (int i = 1; i < HOG_SMS.length; i++) {
      if (neighbourSms <= HOG_SMS[i]) {
        double f = (double) (neighbourSms - HOG_SMS[i - 1]) / (HOG_SMS[i] - HOG_SMS[i - 1]);
        return HOG_SLOWDOWN[i - 1] + f * (HOG_SLOWDOWN[i] - HOG_SLOWDOWN[i - 1]);
      }
    }
    return HOG_SLOWDOWN[HOG_SLOWDOWN.length - 1];
  }

  private static long ceilDiv(long a, long b) {
    return (a + b - 1) / b;
  }

  /**
   * Waits until {@code end}: asleep, except for waits of at most {@link #SPIN_NANOS}, which are
   * spun (a sleep that short ends late by the timer's slack, and on a busy host its wake-up waits
   * for a core, often longer than the kernel). An interrupt ends the wait early and stays set.
   */
  private static void sleepUntil(long end) {
    long left = end - System.nanoTime();
    if (left <= SPIN_NANOS) {
      while (end - System.nanoTime() > 0 && !Thread.currentThread().isInterrupted()) {
        Thread.onSpinWait();
      }
      return;
    }
    while ((left = end - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }
}
