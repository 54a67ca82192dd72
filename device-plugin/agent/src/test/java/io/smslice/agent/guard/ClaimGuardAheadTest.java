package io.smslice.agent.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.GuardLayout;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A best-effort executor of the agent holds its next operation from the ahead time before a
 * periodic latency-critical frame is due, as the interposer's gates close: until the frame's work
 * begins and ends, or until the ahead time after it was due when no frame comes.
 */
class ClaimGuardAheadTest {
  private static final long MS = 1_000_000;

  @TempDir Path dir;

  private static GpuGuard.Settings aheadOf(long millis) {
    return new GpuGuard.Settings(
        Duration.ofSeconds(1),
        1.0,
        Duration.ofSeconds(1),
        4,
        Duration.ZERO,
        HoldOn.STREAM,
        Duration.ofMillis(millis));
  }

  /**
   * A guard file, on, with a latency-critical slot (the first) and a best-effort executor (the
   * second).
   */
  private record Tenants(GpuGuard gpu, ClaimGuard critical, ClaimGuard batch)
      implements AutoCloseable {
    static Tenants of(Path file, long aheadMillis) throws Exception {
      GpuGuard gpu = GpuGuard.create(file, aheadOf(aheadMillis));
      gpu.enable(true);
      return new Tenants(
          gpu,
          gpu.join("det/model", GuardLayout.ROLE_LATENCY_CRITICAL).orElseThrow(),
          gpu.join("batch/trainer", GuardLayout.ROLE_BEST_EFFORT).orElseThrow());
    }

    /** Makes the critical slot's frames come every 200 ms, the next due at `due`; its offset. */
    long periodic(long due) {
      long at = GuardLayout.slotOffset(0);
      gpu.putLong(at + GuardLayout.SLOT_PERIOD, 200 * MS);
      gpu.putLong(at + GuardLayout.SLOT_FRAME_START, due - 200 * MS);
      return at;
    }

    int batchSlot(long field) {
      return gpu.getInt(GuardLayout.slotOffset(1) + field);
    }

    @Override
    public void close() {
      batch.close();
      critical.close();
      gpu.close();
    }
  }

  @Test
  void aFrameThatDoesNotComeHoldsUntilTheAheadTimeAfterItWasDue() throws Exception {
    try (Tenants t = Tenants.of(dir.resolve("guard"), 50)) {
      long due = System.nanoTime() + 20 * MS;
      t.periodic(due);

      t.batch().beforeQueue();

      long returned = System.nanoTime();
      assertThat(returned - (due + 50 * MS)).isBetween(0L, 200 * MS);
      assertThat(t.batchSlot(GuardLayout.SLOT_AHEAD)).isEqualTo(1);
      assertThat(t.batchSlot(GuardLayout.SLOT_AHEAD_MISSED)).isEqualTo(1);
      assertThat(t.batchSlot(GuardLayout.SLOT_CAP_CUTS)).isZero();
    }
  }

  @Test
  void aFrameThatComesHoldsUntilItsWorkEnds() throws Exception {
    try (Tenants t = Tenants.of(dir.resolve("guard"), 50)) {
      GpuGuard gpu = t.gpu();
      long due = System.nanoTime() + 20 * MS;
      long lc = t.periodic(due);
      // The frame's work: from 10 ms after it was due for 100 ms.
      Thread frame =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      Thread.sleep(30);
                      gpu.putLong(lc + GuardLayout.SLOT_BUSY_SINCE, System.nanoTime());
                      gpu.addInt(GuardLayout.BUSY_COUNT_OFFSET, 1);
                      gpu.started();
                      Thread.sleep(100);
                      gpu.clearBusy(lc, gpu.getLong(lc + GuardLayout.SLOT_BUSY_SINCE));
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  });
      long began = System.nanoTime();

      t.batch().beforeQueue();

      long held = System.nanoTime() - began;
      frame.join();
      assertThat(held).as("until the frame's work ended").isBetween(120 * MS, 400 * MS);
      assertThat(t.batchSlot(GuardLayout.SLOT_AHEAD)).isEqualTo(1);
      assertThat(t.batchSlot(GuardLayout.SLOT_AHEAD_MISSED)).isZero();
    }
  }

  @Test
  void withoutAnAheadTimeAnExpectedFrameHoldsNothing() throws Exception {
    try (Tenants t = Tenants.of(dir.resolve("guard"), 0)) {
      t.periodic(System.nanoTime() + 5 * MS);
      long began = System.nanoTime();

      t.batch().beforeQueue();

      assertThat(System.nanoTime() - began).isLessThan(20 * MS);
      assertThat(t.batchSlot(GuardLayout.SLOT_HOLDS)).isZero();
    }
  }
}
