package io.smslice.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.gpu.simulated.SimulatedBackend;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Timed simulated events measure the modelled GPU time between them, as cuEventElapsedTime does,
 * not when the lazily run work happened to run, and agree with queries: work queued behind work
 * that has not run starts when that ends, work queued on an idle stream when queued.
 */
class SimulatedEventTimingTest {
  private static final byte[] PTX =
      ".visible .entry spin() { ret; }\n".getBytes(StandardCharsets.UTF_8);

  /** 1.856 cycles/ns (the simulated clock's calibration): 200 us of spin a wave. */
  private static final long CYCLES = 371_200;

  private static final long NANOS = 200_000;

  private final SimulatedBackend backend = SimulatedBackend.h200(1);
  private final GreenContext context =
      backend.createGreenContext(backend.devices().getFirst().uuid(), List.of(0, 1));

  SimulatedEventTimingTest() throws GpuException {}

  private void spin(GpuStream stream, GpuFunction function) throws GpuException {
    stream.launch(function, LaunchGeometry.of(16, 32), List.of(new KernelArg.I64(CYCLES)));
  }

  @Test
  void eventsQueuedOneBehindTheOtherTimeTheKernelsBetweenThemNotTheHostsDelays() throws Exception {
    GpuFunction function = context.loadModule(PTX).function("spin");
    GpuStream stream = context.createStream();
    GpuEvent first = context.createTimedEvent();
    GpuEvent second = context.createTimedEvent();
    spin(stream, function);
    stream.record(first);
    // Queued behind work that has not run (the first query says so), whatever the host's delay.
    Thread.sleep(30);
    for (int i = 0; i < 3; i++) {
      spin(stream, function);
    }
    stream.record(second);
    assertThat(first.query()).isFalse();
    first.synchronize();
    assertThat(first.query()).isTrue();
    assertThat(second.query()).isFalse();
    Thread.sleep(30); // and however late the lazy run
    second.synchronize();
    assertThat(second.query()).isTrue();
    assertThat(second.nanosSince(first)).isBetween(3 * NANOS, 3 * NANOS + NANOS / 10);
  }

  @Test
  void workQueuedOnAnIdleStreamStartsWhenQueued() throws Exception {
    GpuFunction function = context.loadModule(PTX).function("spin");
    GpuStream stream = context.createStream();
    GpuEvent before = context.createTimedEvent();
    GpuEvent after = context.createTimedEvent();
    stream.record(before);
    Thread.sleep(30);
    spin(stream, function);
    stream.record(after);
    after.synchronize();
    assertThat(after.nanosSince(before)).isGreaterThan(30_000_000L + NANOS);
  }

  @Test
  void anUntimedOrUnfinishedEventCannotTime() throws Exception {
    GpuFunction function = context.loadModule(PTX).function("spin");
    GpuStream stream = context.createStream();
    GpuEvent untimed = context.createEvent();
    GpuEvent timed = context.createTimedEvent();
    stream.record(untimed);
    stream.record(timed);
    assertThatThrownBy(() -> timed.nanosSince(untimed))
        .isInstanceOfSatisfying(
            GpuException.class, e -> assertThat(e.error()).isEqualTo(GpuError.INVALID_VALUE));
    GpuEvent later = context.createTimedEvent();
    spin(stream, function);
    stream.record(later);
    assertThatThrownBy(() -> later.nanosSince(timed))
        .isInstanceOfSatisfying(
            GpuException.class, e -> assertThat(e.error()).isEqualTo(GpuError.DRIVER));
  }
}
