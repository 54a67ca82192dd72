package io.smslice.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Ordered reads and writes of the header counters of a shared mapping: what one side publishes with
 * release is seen, with everything written before it, by the other side's acquire.
 */
public final class SharedCounters {
  private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

  private final MemorySegment memory;

  public SharedCounters(MemorySegment memory) {
    this.memory = memory;
  }

  public long getLong(long offset) {
    return (long) LONG.getAcquire(memory, offset);
  }

  public void putLong(long offset, long value) {
    LONG.setRelease(memory, offset, value);
  }

  public int getInt(long offset) {
    return (int) INT.getAcquire(memory, offset);
  }

  public void putInt(long offset, int value) {
    INT.setRelease(memory, offset, value);
  }

  /**
   * Atomically replaces {@code expected} by {@code value}; false if the int held something else.
   */
  public boolean compareAndSetInt(long offset, int expected, int value) {
    return INT.compareAndSet(memory, offset, expected, value);
  }

  /** Full fence; used around the sleeping flag, where a lost wake-up would stall a tenant. */
  public static void fence() {
    VarHandle.fullFence();
  }
}
