package io.smslice.gpu;

/** A captured, instantiated CUDA graph, replayed with {@link GpuStream#launchGraph}. */
public interface GpuGraph extends AutoCloseable {
  @Override
  void close();
}
