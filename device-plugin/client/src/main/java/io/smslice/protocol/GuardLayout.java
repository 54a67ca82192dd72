package io.smslice.protocol;

/**
 * Layout of a GPU's interference-guard file, shared by every guarded tenant process of the GPU (the
 * interposer's {@code guard_layout.h} says the same, and GuardLayoutTest ties the two) and the
 * agent, which makes the file and writes the header's settings. Each tenant process takes one slot
 * by write-locking the slot's bytes for its life (fcntl; the kernel drops the lock when the owner
 * dies) and then a compare-and-set of its OWNER; a slot with an owner but no lock is a dead one's,
 * whose busy mark anyone may clear. Offsets in bytes; ints are 4 bytes, longs 8, aligned.
 */
public final class GuardLayout {
  public static final int MAGIC = 0x534d4744; // "SMGD"

  /**
   * 2: a slot is owned while its bytes are locked; 3: {@link #STARTS_OFFSET}, and best-effort
   * processes may hold their streams on the GPU.
   */
  public static final int VERSION = 3;

  public static final long MAGIC_OFFSET = 0;
  public static final long VERSION_OFFSET = 4;

  /** Int: 1 while latency-critical and best-effort claims share the GPU. */
  public static final long ENABLED_OFFSET = 8;

  /**
   * Int: the most of each window a best-effort process may be held (its wall time held, by every
   * latency-critical tenant together), per mille.
   */
  public static final long SHARE_PERMILLE_OFFSET = 12;

  /** Long: the longest one launch is held. */
  public static final long MAX_HOLD_NANOS_OFFSET = 16;

  /** Long: the window the share is counted over. */
  public static final long WINDOW_NANOS_OFFSET = 24;

  /** Int: a best-effort tenant's launches in flight at most. */
  public static final long BE_DEPTH_OFFSET = 32;

  /** Int: latency-critical slots with work in flight. */
  public static final long BUSY_COUNT_OFFSET = 36;

  /** Int, a futex: bumped when a latency-critical slot goes idle. */
  public static final long RELEASES_OFFSET = 40;

  /** Int, a futex: bumped when a latency-critical slot goes busy. */
  public static final long STARTS_OFFSET = 44;

  /**
   * Long: the estimated GPU time a best-effort tenant keeps in flight at most (its launches times
   * its mean time per launch, measured by its events), within the depth; 0: the depth alone.
   */
  public static final long BE_INFLIGHT_NANOS_OFFSET = 48;

  /**
   * Int: {@link #HOLD_STREAM} when best-effort tenants may hold their streams on the GPU (where the
   * driver has stream waits); anything else, their launching threads.
   */
  public static final long BE_HOLD_OFFSET = 56;

  /**
   * Long: how long before a periodic latency-critical tenant's next frame is due best-effort gates
   * close, and the idle gap that begins a frame; 0 (as in files of earlier agents): never ahead.
   */
  public static final long AHEAD_NANOS_OFFSET = 64;

  /** The most best-effort launches a tenant keeps in flight, whatever the depth says. */
  public static final int MAX_DEPTH = 1024;

  public static final long SLOTS_OFFSET = 128;
  public static final int SLOTS = 64;
  public static final int SLOT_BYTES = 192;

  /** Long: the process's token, 0 when free. */
  public static final long SLOT_OWNER = 0;

  /** Int: {@link #ROLE_LATENCY_CRITICAL} or {@link #ROLE_BEST_EFFORT}. */
  public static final long SLOT_ROLE = 8;

  /**
   * Int: a best-effort tenant's estimated GPU time per launch, ns (0 before its first estimate).
   */
  public static final long SLOT_LAUNCH_NANOS = 12;

  /** Long: CLOCK_MONOTONIC nanoseconds (System.nanoTime on Linux) of the owner's last write. */
  public static final long SLOT_LEASE = 16;

  /** Long: since when the slot has work in flight, 0 when idle. */
  public static final long SLOT_BUSY_SINCE = 24;

  public static final long SLOT_LAUNCHED = 32;
  public static final long SLOT_COMPLETED = 40;

  /** Long: wall time a best-effort slot spent held, once however many of its threads waited. */
  public static final long SLOT_HELD_NANOS = 48;

  /** Int: best-effort launches that waited. */
  public static final long SLOT_HOLDS = 56;

  /** Int: holds the cap ended (the hold or the share limit). */
  public static final long SLOT_CAP_CUTS = 60;

  /** The claim, NUL-terminated. */
  public static final long SLOT_CLAIM = 64;

  public static final int SLOT_CLAIM_BYTES = 64;

  /** Int: how a best-effort process holds, {@link #HOLD_STREAM} or {@link #HOLD_THREAD}. */
  public static final long SLOT_HOLD_MODE = 128;

  /** Int: 1 while a best-effort process's streams are held on the GPU. */
  public static final long SLOT_GATE_CLOSED = 132;

  /** Long: the waits a best-effort process has put on its streams. */
  public static final long SLOT_STREAM_WAITS = 136;

  /** Long: when a latency-critical tenant's latest frame on schedule began (its phase). */
  public static final long SLOT_FRAME_START = 144;

  /** Long: ns between a latency-critical tenant's frames while they are periodic, else 0. */
  public static final long SLOT_PERIOD = 152;

  /** Int: a best-effort process's gate closings ahead of an expected frame. */
  public static final long SLOT_AHEAD = 160;

  /** Int: of those, the ones that ended with no latency-critical work begun. */
  public static final long SLOT_AHEAD_MISSED = 164;

  public static final int ROLE_LATENCY_CRITICAL = 1;
  public static final int ROLE_BEST_EFFORT = 2;

  /**
   * A best-effort process's streams wait on the GPU for a word its gate thread closes while
   * latency-critical work is in flight; its launches never wait.
   */
  public static final int HOLD_STREAM = 1;

  /** Its launching threads wait (the default, or a driver without stream memory operations). */
  public static final int HOLD_THREAD = 2;

  public static final long FILE_BYTES = SLOTS_OFFSET + (long) SLOTS * SLOT_BYTES;

  private GuardLayout() {}

  public static long slotOffset(int slot) {
    return SLOTS_OFFSET + (long) slot * SLOT_BYTES;
  }
}
