package io.smslice.client;

import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;

/** The tenant's side of the shared mapping: publishes records, waits for completions. */
final class SharedRing {
  private static final long SPIN_NANOS = 2_000_000;

  private final MemorySegment memory;
  private final SharedCounters counters;
  private final Runnable doorbell;
  private long submitted;

  /** Last COMPLETED value read; re-read only when the ring looks full (saves cache traffic). */
  private long completed;

  SharedRing(MemorySegment memory, Runnable doorbell) {
    this.memory = memory;
    this.counters = new SharedCounters(memory);
    this.doorbell = doorbell;
    this.submitted = counters.getLong(SharedLayout.SUBMITTED);
  }

  MemorySegment data() {
    return memory.asSlice(SharedLayout.DATA_OFFSET);
  }

  /**
   * The next free record (waiting while the ring is full); write every field its operation uses,
   * then {@link #publish()}.
   */
  MemorySegment next() {
    while (submitted - completed >= SharedLayout.RING_RECORDS) {
      completed = counters.getLong(SharedLayout.COMPLETED);
      if (submitted - completed >= SharedLayout.RING_RECORDS) {
        checkAlive();
        Thread.onSpinWait();
      }
    }
    return memory.asSlice(SharedLayout.recordOffset(submitted), SharedLayout.RECORD_BYTES);
  }

  /** Publishes the record from {@link #next()}; returns its sequence number. */
  long publish() {
    long seq = submitted++;
    counters.putLong(SharedLayout.SUBMITTED, submitted);
    SharedCounters.fence();
    if (counters.getInt(SharedLayout.AGENT_SLEEPING) != 0) {
      doorbell.run();
    }
    return seq;
  }

  /** Waits until record {@code seq} is done, then reports any failed record. */
  void await(long seq) {
    long start = 0;
    while ((completed = counters.getLong(SharedLayout.COMPLETED)) <= seq) {
      checkAlive();
      if (start == 0) {
        start = System.nanoTime();
      } else if (System.nanoTime() - start > SPIN_NANOS) {
        LockSupport.parkNanos(20_000);
        continue;
      }
      Thread.onSpinWait();
    }
    checkErrors();
  }

  /** Waits for every published record. */
  void drain() {
    if (submitted > 0) {
      await(submitted - 1);
    }
  }

  /** Throws the first failure of a queued operation not reported yet. */
  void checkErrors() {
    long failed = counters.getLong(SharedLayout.FAILED_SEQ);
    if (failed != counters.getLong(SharedLayout.ERROR_ACKNOWLEDGED)) {
      Status status = Status.of(memory.get(ValueLayout.JAVA_INT, SharedLayout.ERROR_STATUS));
      int length = memory.get(ValueLayout.JAVA_INT, SharedLayout.ERROR_LENGTH);
      byte[] message =
          memory
              .asSlice(SharedLayout.ERROR_MESSAGE, Math.min(length, SharedLayout.ERROR_MESSAGE_MAX))
              .toArray(ValueLayout.JAVA_BYTE);
      counters.putLong(SharedLayout.ERROR_ACKNOWLEDGED, failed);
      throw SmsliceException.of(
          status,
          "operation #" + (failed - 1) + ": " + new String(message, StandardCharsets.UTF_8));
    }
  }

  private void checkAlive() {
    int state = counters.getInt(SharedLayout.SESSION_STATE);
    if (state != 0) {
      checkErrors();
      throw SmsliceException.of(Status.of(state), "the agent ended the session");
    }
  }
}
