package io.smslice.gpu;

/** A stream event. */
public interface GpuEvent extends AutoCloseable {
  void synchronize() throws GpuException;

  @Override
  void close();
}
