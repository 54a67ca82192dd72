package io.smslice.gpu;

/** A stream event. */
public interface GpuEvent extends AutoCloseable {
  void synchronize() throws GpuException;

  /** Whether the work before its latest record has ended (true if never recorded); no wait. */
  boolean query() throws GpuException;

  /**
   * The GPU time from {@code start}'s latest record to this event's, in nanoseconds. Both must be
   * timed ({@link GreenContext#createTimedEvent()}) and complete.
   */
  long nanosSince(GpuEvent start) throws GpuException;

  @Override
  void close();
}
