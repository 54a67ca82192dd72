package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;

/**
 * A simulated event marks a point in one stream's queue: its latest record. Synchronizing it runs
 * that stream's work up to the point; an event never recorded is complete, as in CUDA.
 */
final class SimulatedEvent implements GpuEvent {
  private final SimulatedGreenContext context;
  private SimulatedStream stream;
  private long seq;
  private boolean closed;

  SimulatedEvent(SimulatedGreenContext context) {
    this.context = context;
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
  }

  synchronized SimulatedStream stream() {
    return stream;
  }

  synchronized long seq() {
    return seq;
  }

  @Override
  public void synchronize() throws GpuException {
    of(this);
    context.check();
    SimulatedStream on;
    long through;
    synchronized (this) {
      on = stream;
      through = seq;
    }
    if (on != null) {
      on.runThrough(through);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
