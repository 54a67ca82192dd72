package io.smslice.gpu;

/** A loaded module. */
public interface GpuModule extends AutoCloseable {
  GpuFunction function(String name) throws GpuException;

  @Override
  void close();
}
