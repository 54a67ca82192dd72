package io.smslice.agent.guard;

import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.protocol.GuardLayout;
import java.nio.channels.FileLock;
import java.util.ArrayDeque;

/**
 * A claim executor's slot in its GPU's guard file, used on the executor's thread only. A
 * latency-critical claim marks its slot busy while work it queued is in flight (an event after each
 * queued operation); a best-effort claim, before queuing, waits until less than its bound of its
 * own operations is in flight and then while latency-critical work is, within the file's hold and
 * share limits. The bound is the interposer's (guard.c): the file's in-flight time over the claim's
 * mean GPU time per operation, within the file's depth, learnt from a timed event per quarter of
 * the bound and published in the slot.
 */
public final class ClaimGuard implements AutoCloseable {
  private final GpuGuard gpu;
  private final long slot;
  private final long token;
  private final int role;
  private final FileLock lock;
  private final ArrayDeque<Tracked> inFlight = new ArrayDeque<>();
  private final ArrayDeque<GpuEvent> spare = new ArrayDeque<>();
  private GreenContext eventsOf;

  /** The operations the events in flight end. */
  private long covered;

  /** Best-effort: operations queued since its latest event, which no event ends yet. */
  private int pending;

  /** Best-effort: the latest event seen complete, where the next one's time starts. */
  private Tracked lastDone;

  /** Best-effort: GPU time per operation, a moving mean; 0 unknown. */
  private long launchNanos;

  /** Latency-critical: its frames, published for best-effort gates that close ahead of them. */
  private final FramePeriod frames = new FramePeriod();

  private long windowStart;
  private long heldInWindow;
  private long checkedAt;

  /**
   * An event in flight, the operations it ends (those since the event before it), and whether it
   * was queued while that one was pending: only then do the two time what is between them.
   */
  private record Tracked(GpuEvent event, int count, boolean behind) {}

  ClaimGuard(GpuGuard gpu, long slot, long token, int role, FileLock lock) {
    this.gpu = gpu;
    this.slot = slot;
    this.token = token;
    this.role = role;
    this.lock = lock;
  }

  public boolean latencyCritical() {
    return role == GuardLayout.ROLE_LATENCY_CRITICAL;
  }

  /** Whether operations this claim queued may still run (tracked while the guard is on). */
  public boolean inFlight() {
    return !inFlight.isEmpty();
  }

  /** Before queuing an operation: a best-effort claim waits here (bounded). */
  public void beforeQueue() throws GpuException {
    if (latencyCritical() || !gpu.enabled()) {
      return;
    }
    long allowed = allowedInFlight();
    if (covered + pending >= allowed) {
      completeFinished();
      while (covered + pending >= allowed && !inFlight.isEmpty()) {
        awaitOldest();
      }
    }
    if (hold()) {
      // What ended during the hold must not count as in flight: the next operation is not behind.
      completeFinished();
    }
  }

  /** After queuing an operation on {@code stream} of {@code context}: tracks its end. */
  public void queued(GpuStream stream, GreenContext context) throws GpuException {
    if (!gpu.enabled()) {
      return;
    }
    if (context != eventsOf) {
      forgetEvents();
      eventsOf = context;
    }
    gpu.putLong(
        slot + GuardLayout.SLOT_LAUNCHED, gpu.getLong(slot + GuardLayout.SLOT_LAUNCHED) + 1);
    if (latencyCritical()) {
      track(stream, context, 1, false);
      if (inFlight.size() == 1) {
        publishBusy(true);
      }
    } else if (++pending >= launchesPerEvent()) {
      boolean behind = !inFlight.isEmpty() && !inFlight.peekLast().event().query();
      track(stream, context, pending, behind);
      pending = 0;
    }
  }

  private void track(GpuStream stream, GreenContext context, int count, boolean behind)
      throws GpuException {
    GpuEvent event;
    if (!spare.isEmpty()) {
      event = spare.pop();
    } else {
      // Best-effort events are timed: the bound learns from them.
      event = latencyCritical() ? context.createEvent() : context.createTimedEvent();
    }
    stream.record(event);
    inFlight.add(new Tracked(event, count, behind));
    covered += count;
  }

  /**
   * Best-effort: the operations it may keep in flight. With a time bound, as many as fit in it at
   * the estimated time per operation (two until there is an estimate), within the file's depth.
   */
  private long allowedInFlight() {
    long depth = Math.clamp(gpu.getInt(GuardLayout.BE_DEPTH_OFFSET), 1, GuardLayout.MAX_DEPTH);
    long budget = gpu.getLong(GuardLayout.BE_INFLIGHT_NANOS_OFFSET);
    if (budget <= 0) {
      return depth;
    }
    long fit = launchNanos == 0 ? 2 : Math.max(1, budget / launchNanos);
    return Math.min(fit, depth);
  }

  /** Best-effort: one event per a quarter of the bound, so most operations cost a counter. */
  private long launchesPerEvent() {
    return Math.max(1, allowedInFlight() / 4);
  }

  /** Waits for the oldest operation in flight to end (a GPU error ends it too). */
  public void awaitOldest() throws GpuException {
    Tracked oldest = inFlight.peek();
    if (oldest == null) {
      return;
    }
    try {
      oldest.event().synchronize();
    } finally {
      completeOldest();
    }
  }

  /** Ends the operations in flight that have completed, oldest first, without waiting. */
  private void completeFinished() throws GpuException {
    while (!inFlight.isEmpty() && inFlight.peek().event().query()) {
      completeOldest();
    }
  }

  private void completeOldest() {
    Tracked done = inFlight.poll();
    covered -= done.count();
    gpu.putLong(
        slot + GuardLayout.SLOT_COMPLETED,
        gpu.getLong(slot + GuardLayout.SLOT_COMPLETED) + done.count());
    if (latencyCritical()) {
      spare.push(done.event());
      if (inFlight.isEmpty()) {
        publishBusy(false);
      }
      return;
    }
    learnDuration(done);
    if (lastDone != null) {
      spare.push(lastDone.event());
    }
    lastDone = done;
  }

  /**
   * Best-effort: operations queued behind the event completed before them ran from that event to
   * their own, so the two events' distance on the GPU's clock is their duration; the mean per
   * operation is what the bound divides by. An event queued on an idle stream tells nothing.
   */
  private void learnDuration(Tracked done) {
    if (!done.behind() || lastDone == null) {
      return;
    }
    long elapsed;
    try {
      elapsed = done.event().nanosSince(lastDone.event());
    } catch (GpuException e) {
      return; // failed work times nothing
    }
    if (elapsed < 0) {
      return;
    }
    long sample = elapsed / Math.max(1, done.count());
    // A sample far over the mean is more likely a gap the check missed than one operation.
    if (launchNanos != 0 && sample > 16 * launchNanos) {
      sample = 16 * launchNanos;
    }
    launchNanos =
        Math.max(1, launchNanos == 0 ? sample : launchNanos + (sample - launchNanos) / 32);
    gpu.putInt(
        slot + GuardLayout.SLOT_LAUNCH_NANOS, (int) Math.min(launchNanos, Integer.MAX_VALUE));
  }

  /** Drops the events (the claim's green context is about to go): nothing counts as in flight. */
  public void forgetEvents() {
    if (!inFlight.isEmpty() && latencyCritical()) {
      publishBusy(false);
    }
    inFlight.forEach(t -> t.event().close());
    spare.forEach(GpuEvent::close);
    if (lastDone != null) {
      lastDone.event().close();
    }
    inFlight.clear();
    spare.clear();
    lastDone = null;
    covered = 0;
    pending = 0;
    eventsOf = null;
  }

  private boolean ownSlot() {
    return gpu.getLong(slot + GuardLayout.SLOT_OWNER) == token;
  }

  private void publishBusy(boolean busy) {
    if (!ownSlot()) {
      return;
    }
    long now = System.nanoTime();
    long ahead = gpu.getLong(GuardLayout.AHEAD_NANOS_OFFSET);
    if (!busy) {
      frames.idle(now);
    } else if (frames.busy(now, ahead)) {
      gpu.putLong(slot + GuardLayout.SLOT_PERIOD, frames.period());
      gpu.putLong(slot + GuardLayout.SLOT_FRAME_START, frames.phase());
    }
    gpu.putLong(slot + GuardLayout.SLOT_LEASE, now);
    gpu.putLong(slot + GuardLayout.SLOT_BUSY_SINCE, busy ? now : 0);
    gpu.addInt(GuardLayout.BUSY_COUNT_OFFSET, busy ? 1 : -1);
    if (busy) {
      gpu.started();
    } else {
      gpu.released();
    }
  }

  /**
   * 1 busy, -1 only work in flight past the hold limit (cut), 0 none. A busy slot past the limit
   * whose owner died is cleared (its lock asked after at most every 100 ms), so it cuts no later
   * hold.
   */
  private int criticalBusy(long now, long maxHold) {
    if (gpu.getInt(GuardLayout.BUSY_COUNT_OFFSET) <= 0) {
      return 0;
    }
    boolean stale = false;
    boolean check = now - checkedAt >= 100_000_000L;
    for (int i = 0; i < GuardLayout.SLOTS; i++) {
      long at = GuardLayout.slotOffset(i);
      if (!gpu.ownedLatencyCritical(at)) {
        continue;
      }
      long since = gpu.getLong(at + GuardLayout.SLOT_BUSY_SINCE);
      if (since == 0) {
        continue;
      }
      if (now - since < maxHold) {
        return 1;
      }
      if (check && !gpu.ownerAlive(at)) {
        gpu.clearBusy(at, since);
      } else {
        stale = true;
      }
    }
    if (check) {
      checkedAt = now;
    }
    return stale ? -1 : 0;
  }

  /**
   * Best-effort: when the next frame of a periodic latency-critical slot is due, the earliest whose
   * ahead time has not passed, at most two periods after the slot's phase; 0 when none is (as
   * guard.c's expected_frame).
   */
  private long expectedFrame(long now, long ahead) {
    long earliest = 0;
    for (int i = 0; i < GuardLayout.SLOTS; i++) {
      long at = GuardLayout.slotOffset(i);
      if (!gpu.ownedLatencyCritical(at)) {
        continue;
      }
      long period = gpu.getLong(at + GuardLayout.SLOT_PERIOD);
      long phase = gpu.getLong(at + GuardLayout.SLOT_FRAME_START);
      if (period <= 0 || phase <= 0) {
        continue;
      }
      long due = phase + period;
      if (due + ahead <= now) {
        due += period;
      }
      if (due + ahead > now && (earliest == 0 || due < earliest)) {
        earliest = due;
      }
    }
    return earliest;
  }

  /**
   * Holds while latency-critical work is in flight, and with an ahead time also from that long
   * before a periodic latency-critical frame is due until it begins and ends (or until the ahead
   * time after it was due, when it does not come), within the limits; whether it held.
   */
  private boolean hold() {
    long maxHold = gpu.getLong(GuardLayout.MAX_HOLD_NANOS_OFFSET);
    long window = gpu.getLong(GuardLayout.WINDOW_NANOS_OFFSET);
    int share = gpu.getInt(GuardLayout.SHARE_PERMILLE_OFFSET);
    long ahead = gpu.getLong(GuardLayout.AHEAD_NANOS_OFFSET);
    long start = System.nanoTime();
    boolean busyNow = criticalBusy(start, maxHold) == 1;
    long due = busyNow || ahead <= 0 ? 0 : expectedFrame(start, ahead);
    if (!busyNow && (due == 0 || start < due - ahead)) {
      return false;
    }
    if (window <= 0 || start - windowStart >= window) {
      windowStart = start;
      heldInWindow = 0;
    }
    long budget = window > 0 ? window * share / 1000 - heldInWindow : maxHold;
    boolean awaitingFrame = !busyNow;
    if (awaitingFrame && ownSlot()) {
      gpu.addInt(slot + GuardLayout.SLOT_AHEAD, 1);
    }
    boolean cut = false;
    long now;
    while (true) {
      int released = gpu.getInt(GuardLayout.RELEASES_OFFSET);
      int started = gpu.getInt(GuardLayout.STARTS_OFFSET);
      now = System.nanoTime();
      int busy = criticalBusy(now, maxHold);
      if (busy == 1) {
        awaitingFrame = false;
      } else if (!awaitingFrame) {
        cut = busy < 0;
        break;
      } else if (now >= due + ahead) {
        if (ownSlot()) {
          gpu.addInt(slot + GuardLayout.SLOT_AHEAD_MISSED, 1);
        }
        break;
      }
      long left = Math.min(maxHold, budget) - (now - start);
      if (left <= 0) {
        cut = true;
        break;
      }
      if (awaitingFrame) {
        gpu.awaitStart(started, Math.min(Math.min(left, due + ahead - now), 200_000));
      } else {
        gpu.awaitRelease(released, Math.min(left, 200_000));
      }
    }
    long held = now - start;
    heldInWindow += held;
    if (ownSlot()) {
      gpu.putLong(slot + GuardLayout.SLOT_LEASE, now);
      gpu.addLong(slot + GuardLayout.SLOT_HELD_NANOS, held);
      gpu.addInt(slot + GuardLayout.SLOT_HOLDS, 1);
      if (cut) {
        gpu.addInt(slot + GuardLayout.SLOT_CAP_CUTS, 1);
      }
    }
    return true;
  }

  /** Gives the slot back; what is in flight no longer holds anyone. */
  @Override
  public void close() {
    forgetEvents();
    if (ownSlot()) {
      gpu.putLong(slot + GuardLayout.SLOT_OWNER, 0);
    }
    GpuGuard.unlock(lock);
  }
}
