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
 * queued operation); a best-effort claim, before queuing, waits until fewer than the depth of its
 * own operations are in flight and then while latency-critical work is, within the file's hold and
 * share limits (the interposer's guard.c does the same for unmodified programs).
 */
public final class ClaimGuard implements AutoCloseable {
  private final GpuGuard gpu;
  private final long slot;
  private final long token;
  private final int role;
  private final FileLock lock;
  private final ArrayDeque<GpuEvent> inFlight = new ArrayDeque<>();
  private final ArrayDeque<GpuEvent> spare = new ArrayDeque<>();
  private GreenContext eventsOf;
  private long windowStart;
  private long heldInWindow;
  private long checkedAt;

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
    int depth = Math.max(1, gpu.getInt(GuardLayout.BE_DEPTH_OFFSET));
    while (inFlight.size() >= depth) {
      awaitOldest();
    }
    hold();
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
    GpuEvent event = spare.isEmpty() ? context.createEvent() : spare.pop();
    stream.record(event);
    inFlight.add(event);
    gpu.putLong(
        slot + GuardLayout.SLOT_LAUNCHED, gpu.getLong(slot + GuardLayout.SLOT_LAUNCHED) + 1);
    if (inFlight.size() == 1 && latencyCritical()) {
      publishBusy(true);
    }
  }

  /** Waits for the oldest operation in flight to end (a GPU error ends it too). */
  public void awaitOldest() throws GpuException {
    GpuEvent oldest = inFlight.peek();
    if (oldest == null) {
      return;
    }
    try {
      oldest.synchronize();
    } finally {
      inFlight.poll();
      spare.push(oldest);
      gpu.putLong(
          slot + GuardLayout.SLOT_COMPLETED, gpu.getLong(slot + GuardLayout.SLOT_COMPLETED) + 1);
      if (inFlight.isEmpty() && latencyCritical()) {
        publishBusy(false);
      }
    }
  }

  /** Drops the events (the claim's green context is about to go): nothing counts as in flight. */
  public void forgetEvents() {
    if (!inFlight.isEmpty() && latencyCritical()) {
      publishBusy(false);
    }
    inFlight.forEach(GpuEvent::close);
    spare.forEach(GpuEvent::close);
    inFlight.clear();
    spare.clear();
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
      if (gpu.getInt(at + GuardLayout.SLOT_ROLE) != GuardLayout.ROLE_LATENCY_CRITICAL
          || gpu.getLong(at + GuardLayout.SLOT_OWNER) == 0) {
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

  private void hold() {
    long maxHold = gpu.getLong(GuardLayout.MAX_HOLD_NANOS_OFFSET);
    long window = gpu.getLong(GuardLayout.WINDOW_NANOS_OFFSET);
    int share = gpu.getInt(GuardLayout.SHARE_PERMILLE_OFFSET);
    long start = System.nanoTime();
    if (criticalBusy(start, maxHold) != 1) {
      return;
    }
    if (window <= 0 || start - windowStart >= window) {
      windowStart = start;
      heldInWindow = 0;
    }
    long budget = window > 0 ? window * share / 1000 - heldInWindow : maxHold;
    boolean cut = false;
    long now;
    while (true) {
      int seen = gpu.getInt(GuardLayout.RELEASES_OFFSET);
      now = System.nanoTime();
      int busy = criticalBusy(now, maxHold);
      if (busy != 1) {
        cut = busy < 0;
        break;
      }
      long left = Math.min(maxHold, budget) - (now - start);
      if (left <= 0) {
        cut = true;
        break;
      }
      gpu.awaitRelease(seen, Math.min(left, 200_000));
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
