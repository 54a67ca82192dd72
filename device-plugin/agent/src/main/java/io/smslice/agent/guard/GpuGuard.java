package io.smslice.agent.guard;

import io.smslice.protocol.Futex;
import io.smslice.protocol.GuardLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One GPU's interference-guard file ({@link GuardLayout}), which the agent makes and every guarded
 * tenant of the GPU maps: the interposer's processes and the agent's own executors ({@link
 * ClaimGuard}). The agent writes the limits and turns the guard on only while latency-critical and
 * best-effort claims share the GPU.
 */
public final class GpuGuard implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(GpuGuard.class.getName());
  private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
  private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

  /**
   * The admin's limits.
   *
   * @param maxHold the longest one best-effort launch is held, and how long latency-critical work
   *     in flight counts at all (so a tenant that died busy holds others once)
   * @param share the most of each window a best-effort process may be held (its wall time held, by
   *     every latency-critical tenant together), 0..1
   * @param window the window the share is counted over
   * @param depth a best-effort tenant's launches in flight at most
   * @param inFlight the estimated GPU time a best-effort tenant keeps in flight at most (its
   *     launches times its measured time per launch), within {@code depth}; zero: the depth alone
   * @param holdOn how best-effort tenants of the interposer hold: their launching threads, or their
   *     streams on the GPU (where the driver has stream waits)
   * @param ahead how long before a periodic latency-critical tenant's next frame is due the
   *     interposer's best-effort gates close (holding on the GPU), and the idle gap that begins a
   *     frame; zero: they close only once its work has begun
   */
  public record Settings(
      Duration maxHold,
      double share,
      Duration window,
      int depth,
      Duration inFlight,
      HoldOn holdOn,
      Duration ahead) {
    public static final Settings DEFAULTS =
        new Settings(
            Duration.ofMillis(10),
            0.5,
            Duration.ofMillis(100),
            16,
            Duration.ofNanos(250_000),
            HoldOn.STREAM,
            Duration.ZERO);

    /** Holding on the launching thread. */
    public Settings(Duration maxHold, double share, Duration window, int depth, Duration inFlight) {
      this(maxHold, share, window, depth, inFlight, HoldOn.THREAD, Duration.ZERO);
    }

    public Settings {
      if (maxHold.isNegative() || maxHold.isZero() || window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("the guard's maxHold and window must be positive");
      }
      if (!(share >= 0 && share <= 1) || depth < 1 || depth > GuardLayout.MAX_DEPTH) {
        throw new IllegalArgumentException(
            "the guard's share must be within 0..1 and its depth within 1.."
                + GuardLayout.MAX_DEPTH);
      }
      if (inFlight.isNegative() || ahead.isNegative()) {
        throw new IllegalArgumentException(
            "the guard's in-flight and ahead times must not be negative");
      }
      java.util.Objects.requireNonNull(holdOn, "holdOn");
    }
  }

  /** One slot as the file shows it (a tenant process or an executor of the agent). */
  public record Slot(
      String claim,
      int role,
      boolean busy,
      long launched,
      long completed,
      long heldNanos,
      int holds,
      int capCuts,
      int launchNanos,
      int holdMode,
      long streamWaits,
      long periodNanos,
      int ahead,
      int aheadMissed) {}

  private final Path path;
  private final Arena arena;
  final MemorySegment memory;

  /**
   * Open for this object's life: its executors' slot locks live on it. The only channel of the file
   * in this process, since closing any would drop the process's (POSIX) locks on the file.
   */
  private final FileChannel channel;

  private GpuGuard(Path path, FileChannel channel, MemorySegment memory, Arena arena) {
    this.path = path;
    this.channel = channel;
    this.memory = memory;
    this.arena = arena;
  }

  /**
   * Makes a fresh file at {@code path} (replacing one left by an earlier agent: its tenants are
   * gone or attach anew), off, with the given limits. Readable and writable by every tenant user.
   */
  public static GpuGuard create(Path path, Settings settings) throws IOException {
    Path temp =
        path.resolveSibling(
            "."
                + path.getFileName()
                + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    try (FileChannel channel =
        FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.write(java.nio.ByteBuffer.allocate((int) GuardLayout.FILE_BYTES));
    }
    Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-rw-rw-"));
    GpuGuard guard = open(temp);
    guard.putLong(GuardLayout.MAX_HOLD_NANOS_OFFSET, settings.maxHold().toNanos());
    guard.putLong(GuardLayout.WINDOW_NANOS_OFFSET, settings.window().toNanos());
    guard.putInt(GuardLayout.SHARE_PERMILLE_OFFSET, (int) Math.round(settings.share() * 1000));
    guard.putInt(GuardLayout.BE_DEPTH_OFFSET, settings.depth());
    guard.putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, settings.inFlight().toNanos());
    guard.putInt(
        GuardLayout.BE_HOLD_OFFSET,
        settings.holdOn() == HoldOn.STREAM ? GuardLayout.HOLD_STREAM : GuardLayout.HOLD_THREAD);
    guard.putLong(GuardLayout.AHEAD_NANOS_OFFSET, settings.ahead().toNanos());
    guard.putInt(GuardLayout.VERSION_OFFSET, GuardLayout.VERSION);
    guard.putInt(GuardLayout.MAGIC_OFFSET, GuardLayout.MAGIC);
    guard.close();
    Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return open(path);
  }

  /** Maps an existing guard file; fails with the reason when it is not one. */
  public static GpuGuard open(Path path) throws IOException {
    Arena arena = Arena.ofShared();
    FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    MemorySegment memory;
    try {
      if (channel.size() < GuardLayout.FILE_BYTES) {
        throw new IOException(path + " is not a guard file (" + channel.size() + " bytes)");
      }
      memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, GuardLayout.FILE_BYTES, arena);
    } catch (IOException e) {
      channel.close();
      arena.close();
      throw e;
    }
    GpuGuard guard = new GpuGuard(path, channel, memory, arena);
    int magic = guard.getInt(GuardLayout.MAGIC_OFFSET);
    if (magic != 0
        && (magic != GuardLayout.MAGIC
            || guard.getInt(GuardLayout.VERSION_OFFSET) != GuardLayout.VERSION)) {
      guard.close();
      throw new IOException(path + " is not a version " + GuardLayout.VERSION + " guard file");
    }
    return guard;
  }

  public Path path() {
    return path;
  }

  /** Turns the guard on or off for every tenant of the GPU (they read it at each launch). */
  public void enable(boolean on) {
    putInt(GuardLayout.ENABLED_OFFSET, on ? 1 : 0);
  }

  /**
   * Sets the best-effort in-flight time bound (zero: the depth alone); tenants read it per launch.
   */
  public void setInFlight(Duration inFlight) {
    if (inFlight.isNegative()) {
      throw new IllegalArgumentException("the guard's in-flight time must not be negative");
    }
    putLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET, inFlight.toNanos());
  }

  /** Sets how long ahead of a periodic latency-critical frame gates close (zero: never ahead). */
  public void setAhead(Duration ahead) {
    if (ahead.isNegative()) {
      throw new IllegalArgumentException("the guard's ahead time must not be negative");
    }
    putLong(GuardLayout.AHEAD_NANOS_OFFSET, ahead.toNanos());
  }

  public boolean enabled() {
    return getInt(GuardLayout.ENABLED_OFFSET) == 1;
  }

  /**
   * Every taken slot. A slot is busy only while its owner lives: a dead owner's mark stays in the
   * file until a best-effort waiter or the agent's sweep clears it, but is no longer work in
   * flight.
   */
  public List<Slot> slots() {
    List<Slot> out = new ArrayList<>();
    for (int i = 0; i < GuardLayout.SLOTS; i++) {
      long at = GuardLayout.slotOffset(i);
      if (getLong(at + GuardLayout.SLOT_OWNER) == 0) {
        continue;
      }
      out.add(
          new Slot(
              claimOf(at),
              getInt(at + GuardLayout.SLOT_ROLE),
              getLong(at + GuardLayout.SLOT_BUSY_SINCE) != 0 && ownerAlive(at),
              getLong(at + GuardLayout.SLOT_LAUNCHED),
              getLong(at + GuardLayout.SLOT_COMPLETED),
              getLong(at + GuardLayout.SLOT_HELD_NANOS),
              getInt(at + GuardLayout.SLOT_HOLDS),
              getInt(at + GuardLayout.SLOT_CAP_CUTS),
              getInt(at + GuardLayout.SLOT_LAUNCH_NANOS),
              getInt(at + GuardLayout.SLOT_HOLD_MODE),
              getLong(at + GuardLayout.SLOT_STREAM_WAITS),
              getLong(at + GuardLayout.SLOT_PERIOD),
              getInt(at + GuardLayout.SLOT_AHEAD),
              getInt(at + GuardLayout.SLOT_AHEAD_MISSED)));
    }
    return out;
  }

  private String claimOf(long slotAt) {
    byte[] bytes = new byte[GuardLayout.SLOT_CLAIM_BYTES];
    MemorySegment.copy(
        memory, ValueLayout.JAVA_BYTE, slotAt + GuardLayout.SLOT_CLAIM, bytes, 0, bytes.length);
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  /**
   * Takes a slot for a claim's executor: a free one, else a dead owner's, locked for the executor's
   * life; empty when every slot is taken.
   */
  public java.util.Optional<ClaimGuard> join(String claim, int role) {
    long token = ThreadLocalRandom.current().nextLong() | 1;
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < GuardLayout.SLOTS; i++) {
        long at = GuardLayout.slotOffset(i);
        long seen = getLong(at + GuardLayout.SLOT_OWNER);
        if ((seen != 0) != (pass == 1)) {
          continue;
        }
        FileLock lock = lockSlot(at);
        if (lock == null) {
          continue;
        }
        if (!LONG.compareAndSet(memory, at + GuardLayout.SLOT_OWNER, seen, token)) {
          unlock(lock);
          continue;
        }
        return java.util.Optional.of(takeOver(at, claim, role, token, lock));
      }
    }
    return java.util.Optional.empty();
  }

  private ClaimGuard takeOver(long at, String claim, int role, long token, FileLock lock) {
    clearBusy(at, getLong(at + GuardLayout.SLOT_BUSY_SINCE));
    memory
        .asSlice(at + GuardLayout.SLOT_ROLE, GuardLayout.SLOT_BYTES - GuardLayout.SLOT_ROLE)
        .fill((byte) 0);
    byte[] name = claim.getBytes(StandardCharsets.UTF_8);
    MemorySegment.copy(
        name,
        0,
        memory,
        ValueLayout.JAVA_BYTE,
        at + GuardLayout.SLOT_CLAIM,
        Math.min(name.length, GuardLayout.SLOT_CLAIM_BYTES - 1));
    putInt(at + GuardLayout.SLOT_ROLE, role);
    putLong(at + GuardLayout.SLOT_LEASE, System.nanoTime());
    return new ClaimGuard(this, at, token, role, lock);
  }

  /** The slot's lock, or null when another owner (a process, or an executor here) holds it. */
  private FileLock lockSlot(long at) {
    try {
      return channel.tryLock(at, GuardLayout.SLOT_BYTES, false);
    } catch (OverlappingFileLockException e) {
      return null;
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot lock a slot of {0}: {1}", path, e.getMessage());
      return null;
    }
  }

  static void unlock(FileLock lock) {
    try {
      lock.release();
    } catch (IOException e) {
      // the channel is closed: the lock went with it
    }
  }

  /** Whether the slot at {@code at} is a latency-critical process's (taken, not yet given back). */
  boolean ownedLatencyCritical(long at) {
    return getInt(at + GuardLayout.SLOT_ROLE) == GuardLayout.ROLE_LATENCY_CRITICAL
        && getLong(at + GuardLayout.SLOT_OWNER) != 0;
  }

  /** Whether the slot's owner lives: its lock is held (or cannot be tested). */
  boolean ownerAlive(long at) {
    FileLock probe = lockSlot(at);
    if (probe == null) {
      return true;
    }
    unlock(probe);
    return false;
  }

  /**
   * Takes the busy marks of latency-critical owners that died off the count (the agent's sweep, for
   * when no best-effort waiter comes to); a live owner's mark stays. Returns how many it took.
   */
  int sweepDeadOwners() {
    int cleared = 0;
    for (int i = 0; i < GuardLayout.SLOTS && getInt(GuardLayout.BUSY_COUNT_OFFSET) > 0; i++) {
      long at = GuardLayout.slotOffset(i);
      long since = getLong(at + GuardLayout.SLOT_BUSY_SINCE);
      if (since == 0 || !ownedLatencyCritical(at) || ownerAlive(at)) {
        continue;
      }
      if (clearBusy(at, since)) {
        cleared++;
      }
    }
    return cleared;
  }

  /** Takes a slot's busy mark off the count, once whoever races for it; true when this call did. */
  boolean clearBusy(long at, long seen) {
    if (seen == 0 || !LONG.compareAndSet(memory, at + GuardLayout.SLOT_BUSY_SINCE, seen, 0L)) {
      return false;
    }
    addInt(GuardLayout.BUSY_COUNT_OFFSET, -1);
    released();
    return true;
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

  void addInt(long offset, int delta) {
    int ignored = (int) INT.getAndAdd(memory, offset, delta);
  }

  void addLong(long offset, long delta) {
    long ignored = (long) LONG.getAndAdd(memory, offset, delta);
  }

  /** Wakes the best-effort tenants waiting for a release. */
  void released() {
    addInt(GuardLayout.RELEASES_OFFSET, 1);
    if (Futex.available()) {
      Futex.wakeAll(memory, GuardLayout.RELEASES_OFFSET);
    }
  }

  /** Wakes the best-effort tenants' gate threads: latency-critical work is in flight. */
  void started() {
    addInt(GuardLayout.STARTS_OFFSET, 1);
    if (Futex.available()) {
      Futex.wakeAll(memory, GuardLayout.STARTS_OFFSET);
    }
  }

  /** Sleeps until a release or at most the given time. */
  void awaitRelease(int seen, long nanos) {
    await(GuardLayout.RELEASES_OFFSET, seen, nanos);
  }

  /** Sleeps until latency-critical work starts or at most the given time. */
  void awaitStart(int seen, long nanos) {
    await(GuardLayout.STARTS_OFFSET, seen, nanos);
  }

  private void await(long word, int seen, long nanos) {
    if (Futex.available()) {
      Futex.await(memory, word, seen, nanos);
    } else {
      java.util.concurrent.locks.LockSupport.parkNanos(Math.min(nanos, 50_000));
    }
  }

  @Override
  public void close() {
    arena.close();
    try {
      channel.close();
    } catch (IOException e) {
      // its locks go with it either way
    }
  }
}
