package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;

/**
 * A simulated event marks a point in one stream's queue: its latest record. Synchronizing it runs
 * that stream's work up to the point; an event never recorded is complete, as in CUDA. Once that
 * work has run, the event holds when it ended on the stream's modelled timeline, which a timed
 * event can be asked for.
 */
final class SimulatedEvent implements GpuEvent {
  private final SimulatedGreenContext context;
  private final boolean timed;
  private SimulatedStream stream;
  private long seq;
  private boolean stamped;
  private long at;
  private boolean closed;

  SimulatedEvent(SimulatedGreenContext context, boolean timed) {
    this.context = context;
    this.timed = timed;
  }

  static SimulatedEvent of(GpuEvent event) throws GpuException {
    if (!(event instanceof SimulatedEvent simulated)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a simulated event: " + event);
    }
    synchronized (simulated) {
      if (simulated.closed) {
        throw new GpuException(GpuError.INVALID_VALUE, "event was destroyed (invalid handle)");
      }
    }
    return simulated;
  }

  SimulatedGreenContext context() {
    return context;
  }

  synchronized void recorded(SimulatedStream on, long position) {
    stream = on;
    seq = position;
    stamped = false;
  }

  /** The work before the record at {@code position} of {@code on} ended at {@code nanos}. */
  synchronized void stamp(SimulatedStream on, long position, long nanos) {
    if (stream == on && seq == position) {
      at = nanos;
      stamped = true;
    }
  }

  synchronized SimulatedStream stream() {
    return stream;
  }

  synchronized long seq() {
    return seq;
  }

  /** Its latest record: the stream (null if never recorded) and the position on it. */
  private record Recorded(SimulatedStream on, long through) {}

  private Recorded latest() throws GpuException {
    of(this);
    context.check();
    synchronized (this) {
      return new Recorded(stream, seq);
    }
  }

  @Override
  public void synchronize() throws GpuException {
    Recorded r = latest();
    if (r.on() != null) {
      r.on().runThrough(r.through());
    }
  }

  @Override
  public boolean query() throws GpuException {
    Recorded r = latest();
    return r.on() == null || r.on().ranThrough(r.through());
  }

  @Override
  public long nanosSince(GpuEvent start) throws GpuException {
    SimulatedEvent from = of(start);
    return stampOf(this) - stampOf(from);
  }

  /** Fails as cuEventElapsedTime does: an event without timing, never recorded, or not done. */
  private static long stampOf(SimulatedEvent event) throws GpuException {
    of(event);
    synchronized (event) {
      if (!event.timed || event.stream == null) {
        throw new GpuException(
            GpuError.INVALID_VALUE, "event is untimed or was never recorded (invalid handle)");
      }
      if (!event.stamped) {
        throw new GpuException(GpuError.DRIVER, "event is not complete (not ready)");
      }
      return event.at;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
