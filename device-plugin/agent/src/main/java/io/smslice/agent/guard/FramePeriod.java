package io.smslice.agent.guard;

/**
 * A latency-critical tenant's frames, as the interposer's guard.c learns them: work in flight after
 * an idle gap of at least the file's ahead time begins a frame, and while the latest four intervals
 * between frames agree within that time the tenant is periodic with the shortest of them. Its slot
 * says so, and best-effort gates close that long before its next frame is due.
 */
final class FramePeriod {
  private static final int INTERVALS = 4;

  private final long[] intervals = new long[INTERVALS];
  private int seen;
  private long idleSince;
  private long frameStart;

  /** Its work in flight ran out at {@code now}. */
  void idle(long now) {
    idleSince = now;
  }

  /** Its work in flight began at {@code now}; true when that began a frame. */
  boolean busy(long now, long ahead) {
    if (ahead <= 0 || (idleSince != 0 && now - idleSince < ahead)) {
      return false;
    }
    if (frameStart != 0) {
      intervals[seen++ % INTERVALS] = now - frameStart;
    }
    frameStart = now;
    return true;
  }

  /** When the latest frame began; 0 before the first. */
  long frameStart() {
    return frameStart;
  }

  /** The shortest of the latest intervals while they agree within {@code ahead}, else 0. */
  long period(long ahead) {
    if (seen < INTERVALS) {
      return 0;
    }
    long lo = Long.MAX_VALUE;
    long hi = 0;
    for (long interval : intervals) {
      lo = Math.min(lo, interval);
      hi = Math.max(hi, interval);
    }
    return hi - lo <= ahead ? lo : 0;
  }
}
