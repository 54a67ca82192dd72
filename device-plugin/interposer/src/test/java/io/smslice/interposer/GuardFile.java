package io.smslice.interposer;

import io.smslice.protocol.GuardLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A GPU's guard file as the tests make and read it, through {@link GuardLayout} only. */
final class GuardFile implements AutoCloseable {
  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
  private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

  final Path path;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment memory;

  /** Open while the file is: the slots this test plays are locked on it, as a live owner's are. */
  private final FileChannel channel;

  private final java.util.Set<Integer> locked = new java.util.HashSet<>();

  /** A fresh file: enabled, with the given limits. */
  GuardFile(Path path, long maxHoldMillis, long windowMillis, int sharePermille, int depth)
      throws IOException {
    this.path = path;
    channel =
        FileChannel.open(
            path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, GuardLayout.FILE_BYTES, arena);
    putLong(GuardLayout.MAX_HOLD_NANOS_OFFSET, maxHoldMillis * 1_000_000);
    putLong(GuardLayout.WINDOW_NANOS_OFFSET, windowMillis * 1_000_000);
    putInt(GuardLayout.SHARE_PERMILLE_OFFSET, sharePermille);
    putInt(GuardLayout.BE_DEPTH_OFFSET, depth);
    putInt(GuardLayout.VERSION_OFFSET, GuardLayout.VERSION);
    putInt(GuardLayout.MAGIC_OFFSET, GuardLayout.MAGIC);
    enable(true);
  }

  /** Lets best-effort tenants hold their streams on the GPU, as holdOn: stream does. */
  GuardFile holdingStreams() {
    putInt(GuardLayout.BE_HOLD_OFFSET, GuardLayout.HOLD_STREAM);
    return this;
  }

  void enable(boolean on) {
    putInt(GuardLayout.ENABLED_OFFSET, on ? 1 : 0);
  }

  int getInt(long offset) {
    return (int) INT.getAcquire(memory, offset);
  }

  long getLong(long offset) {
    return (long) LONG.getAcquire(memory, offset);
  }

  void putInt(long offset, int value) {
    INT.setRelease(memory, offset, value);
  }

  void putLong(long offset, long value) {
    LONG.setRelease(memory, offset, value);
  }

  /** The first slot of that role with an owner, or -1. */
  int slotOf(int role) {
    for (int i = 0; i < GuardLayout.SLOTS; i++) {
      long at = GuardLayout.slotOffset(i);
      if (getLong(at + GuardLayout.SLOT_OWNER) != 0 && getInt(at + GuardLayout.SLOT_ROLE) == role) {
        return i;
      }
    }
    return -1;
  }

  long slotLong(int slot, long field) {
    return getLong(GuardLayout.slotOffset(slot) + field);
  }

  int slotInt(int slot, long field) {
    return getInt(GuardLayout.slotOffset(slot) + field);
  }

  String slotClaim(int slot) {
    byte[] bytes = new byte[GuardLayout.SLOT_CLAIM_BYTES];
    MemorySegment.copy(
        memory,
        ValueLayout.JAVA_BYTE,
        GuardLayout.slotOffset(slot) + GuardLayout.SLOT_CLAIM,
        bytes,
        0,
        bytes.length);
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) end++;
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  /**
   * Plays a live latency-critical process (its slot locked) that is busy from now on and never says
   * it finished.
   */
  void markCriticalBusy(int slot) throws IOException {
    long at = GuardLayout.slotOffset(slot);
    if (locked.add(slot)) {
      channel.lock(at, GuardLayout.SLOT_BYTES, false);
    }
    putInt(at + GuardLayout.SLOT_ROLE, GuardLayout.ROLE_LATENCY_CRITICAL);
    putLong(at + GuardLayout.SLOT_LEASE, System.nanoTime());
    putLong(at + GuardLayout.SLOT_BUSY_SINCE, System.nanoTime());
    putLong(at + GuardLayout.SLOT_OWNER, 0x7e57L);
    putInt(GuardLayout.BUSY_COUNT_OFFSET, getInt(GuardLayout.BUSY_COUNT_OFFSET) + 1);
    // Without a futex wake: a gate thread asleep sees it when it next looks (within 50 ms).
    putInt(GuardLayout.STARTS_OFFSET, getInt(GuardLayout.STARTS_OFFSET) + 1);
  }

  /** Ends that slot's work in flight, as its process's completion thread would. */
  void releaseCritical(int slot) {
    putLong(GuardLayout.slotOffset(slot) + GuardLayout.SLOT_BUSY_SINCE, 0);
    putInt(GuardLayout.BUSY_COUNT_OFFSET, getInt(GuardLayout.BUSY_COUNT_OFFSET) - 1);
    putInt(GuardLayout.RELEASES_OFFSET, getInt(GuardLayout.RELEASES_OFFSET) + 1);
  }

  /** Renews that slot's busy mark, as a process that keeps launching would. */
  void renewCriticalBusy(int slot) {
    long at = GuardLayout.slotOffset(slot);
    putLong(at + GuardLayout.SLOT_LEASE, System.nanoTime());
    putLong(at + GuardLayout.SLOT_BUSY_SINCE, System.nanoTime());
  }

  @Override
  public void close() throws IOException {
    arena.close();
    channel.close();
  }
}
