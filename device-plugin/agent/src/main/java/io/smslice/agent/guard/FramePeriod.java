package io.smslice.agent.guard;

/**
 * A latency-critical tenant's frames, as the interposer's guard.c learns them: work in flight after
 * an idle gap of at least the file's ahead time begins a frame. A tenant whose latest four
 * intervals between frames agree within that time is periodic with the shortest of them, and stays
 * so while its frames keep to the schedule: a frame within the ahead time of a multiple of the
 * period after the phase is on schedule and moves the phase (and the period an eighth of the way to
 * the mean since the phase); one frame off schedule leaves the phase, so that the next frame of a
 * loop on a fixed schedule is still expected on time; a next frame one period after that one means
 * the schedule moved with it; any other ends the period. Its slot says the period and the phase,
 * and best-effort gates close the ahead time before the next frame is due.
 */
final class FramePeriod {
  private static final int INTERVALS = 4;

  private final long[] intervals = new long[INTERVALS];
  private int seen;
  private long idleSince;
  private long frameStart;
  private long period;
  private long phase;
  private long offSchedule;

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
    if (period > 0) {
      followSchedule(now, ahead);
    }
    if (period <= 0) {
      period = seen >= INTERVALS && spread() <= ahead ? shortest() : 0;
      phase = now;
    }
    return true;
  }

  private void followSchedule(long now, long ahead) {
    long k = Math.max(1, (now - phase + period / 2) / period);
    long late = now - (phase + k * period);
    long moved = now - (offSchedule + period);
    if (Math.abs(late) <= ahead) {
      period += ((now - phase) / k - period) / 8;
      phase = now;
      offSchedule = 0;
    } else if (offSchedule != 0 && Math.abs(moved) <= ahead) {
      phase = now;
      offSchedule = 0;
    } else if (offSchedule != 0) {
      period = 0;
      offSchedule = 0;
    } else {
      offSchedule = now;
    }
  }

  private long shortest() {
    long lo = Long.MAX_VALUE;
    for (long interval : intervals) {
      lo = Math.min(lo, interval);
    }
    return lo;
  }

  private long spread() {
    long hi = 0;
    for (long interval : intervals) {
      hi = Math.max(hi, interval);
    }
    return hi - shortest();
  }

  /** When its latest frame on schedule began; 0 before the first frame. */
  long phase() {
    return phase;
  }

  /** Its period while it is periodic, else 0. */
  long period() {
    return period;
  }
}
