package io.smslice.client;

import io.smslice.protocol.Futex;
import io.smslice.protocol.SharedCounters;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The tenant's side of the shared mapping: publishes records, waits for completions. A wait spins
 * briefly, then sleeps on COMPLETED (a futex the agent wakes after each completion it publishes),
 * so that waiting tenants leave the host's cores to the threads that would complete their work. A
 * wait never lasts forever: it ends when the agent closes the connection (checked every 50 ms once
 * the wait sleeps) and, whatever else happens, after the wait timeout ({@code
 * SMSLICE_WAIT_TIMEOUT_SECONDS}, 300 s by default).
 */
final class SharedRing {
  private static final long BUSY_SPIN_NANOS = 20_000;
  private static final long SPIN_NANOS = 2_000_000;
  private static final long CHECK_NANOS = 50_000_000;
  static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(300);

  private final MemorySegment memory;
  private final SharedCounters counters;
  private final Runnable doorbell;
  private final BooleanSupplier agentConnected;
  private final long waitTimeoutNanos;
  private long submitted;

  /** Last COMPLETED value read; re-read only when the ring looks full (saves cache traffic). */
  private long completed;

  SharedRing(
      MemorySegment memory,
      Runnable doorbell,
      BooleanSupplier agentConnected,
      Duration waitTimeout) {
    this.memory = memory;
    this.counters = new SharedCounters(memory);
    this.doorbell = doorbell;
    this.agentConnected = agentConnected;
    this.waitTimeoutNanos = waitTimeout.toNanos();
    this.submitted = counters.getLong(SharedLayout.SUBMITTED);
  }

  /** SMSLICE_WAIT_TIMEOUT_SECONDS, or the default. */
  static Duration configuredWaitTimeout() {
    String value = System.getenv("SMSLICE_WAIT_TIMEOUT_SECONDS");
    if (value == null || value.isBlank()) {
      return DEFAULT_WAIT_TIMEOUT;
    }
    try {
      long seconds = Long.parseLong(value.trim());
      if (seconds > 0) {
        return Duration.ofSeconds(seconds);
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new IllegalStateException(
        "SMSLICE_WAIT_TIMEOUT_SECONDS must be a positive number of seconds, not '" + value + "'");
  }

  MemorySegment data() {
    return memory.asSlice(SharedLayout.DATA_OFFSET);
  }

  /**
   * The next free record (waiting while the ring is full); write every field its operation uses,
   * then {@link #publish()}.
   */
  MemorySegment next() {
    Wait wait = null;
    while (submitted - completed >= SharedLayout.RING_RECORDS) {
      completed = counters.getLong(SharedLayout.COMPLETED);
      if (submitted - completed >= SharedLayout.RING_RECORDS) {
        checkAlive();
        if (wait == null) {
          wait = new Wait("a free ring slot (the ring is full)", completed);
        }
        wait.pause(completed);
      }
    }
    return memory.asSlice(SharedLayout.recordOffset(submitted), SharedLayout.RECORD_BYTES);
  }

  /** Publishes the record from {@link #next()}; returns its sequence number. */
  long publish() {
    long seq = submitted++;
    counters.putLong(SharedLayout.SUBMITTED, submitted);
    SharedCounters.fence();
    // One wake-up per sleep of the agent (1 or 3 -> 2): later records of a burst find it rung.
    // Asleep on the flag itself (3), the agent is woken as a futex, without a trip through the
    // socket; parked (1), by the DOORBELL frame.
    int sleeping = counters.getInt(SharedLayout.AGENT_SLEEPING);
    if ((sleeping == 1 || sleeping == 3)
        && counters.compareAndSetInt(SharedLayout.AGENT_SLEEPING, sleeping, 2)) {
      if (sleeping == 3 && Futex.available()) {
        Futex.wakeAll(memory, SharedLayout.AGENT_SLEEPING);
      } else {
        doorbell.run();
      }
    }
    return seq;
  }

  /** Waits until record {@code seq} is done, then reports any failed record. */
  void await(long seq) {
    Wait wait = null;
    while ((completed = counters.getLong(SharedLayout.COMPLETED)) <= seq) {
      checkAlive();
      if (wait == null) {
        wait = new Wait("operation #" + seq, completed);
      }
      wait.pause(completed);
    }
    checkErrors();
  }

  /**
   * One wait: spins briefly, then sleeps until the agent completes something (or polls where
   * futexes are not available), checking the agent's connection and the deadline.
   */
  private final class Wait {
    private final String what;
    private final long start = System.nanoTime();
    private long lastCheck = start;
    private long lastCompleted;
    private long lastProgress = start;

    Wait(String what, long completed) {
      this.what = what;
      this.lastCompleted = completed;
    }

    void pause(long completed) {
      long now = System.nanoTime();
      if (completed != lastCompleted) {
        lastCompleted = completed;
        lastProgress = now;
      }
      if (now - start < BUSY_SPIN_NANOS) {
        Thread.onSpinWait();
        return;
      }
      if (!Futex.available() && now - start < SPIN_NANOS) {
        // Past a short busy spin, give the core away while still polling: on a host with more
        // runnable threads than cores (the agent among them) a spinning tenant would delay the
        // very completion it waits for. With an idle core, yield returns at once.
        Thread.yield();
        return;
      }
      if (now - lastCheck > CHECK_NANOS) {
        lastCheck = now;
        if (!agentConnected.getAsBoolean()) {
          throw new DeviceLostException(
              Status.DEVICE_LOST,
              "the agent closed the session while this tenant waited for " + what + "; reconnect");
        }
      }
      if (now - lastProgress > waitTimeoutNanos) {
        throw new SmsliceException(
            Status.UNAVAILABLE,
            "waited "
                + waitTimeoutNanos / 1_000_000
                + " ms for "
                + what
                + " without the agent completing anything (completed through #"
                + (completed - 1)
                + "); the claim's executor may be stuck or the GPU hung"
                + " (SMSLICE_WAIT_TIMEOUT_SECONDS sets this limit)");
      }
      if (Futex.available()) {
        sleep(completed);
      } else {
        LockSupport.parkNanos(20_000);
      }
    }

    /**
     * Sleeps while COMPLETED still holds {@code completed}, at most until the next liveness check.
     * The flag, set before the last look at COMPLETED, tells the agent to wake this thread after it
     * publishes a completion; the futex itself re-checks the value, so no wake-up is lost.
     */
    private void sleep(long completed) {
      counters.putInt(SharedLayout.TENANT_SLEEPING, 1);
      SharedCounters.fence();
      if (counters.getLong(SharedLayout.COMPLETED) == completed
          && counters.getInt(SharedLayout.SESSION_STATE) == 0) {
        Futex.await(memory, SharedLayout.COMPLETED, (int) completed, CHECK_NANOS);
      }
      counters.putInt(SharedLayout.TENANT_SLEEPING, 0);
    }
  }

  /** The agent's modelled GPU time of this session (simulated GPUs only; see SharedLayout). */
  long modelledGpuNanos() {
    return counters.getLong(SharedLayout.MODELLED_GPU_NANOS);
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
