package io.smslice.gpu;

import java.lang.foreign.MemorySegment;

/**
 * A green context: kernels launched on its streams run only on its SMs. Device memory allocated
 * here belongs to the GPU's shared context and survives this green context (so a slice can be
 * resized without losing memory); modules, streams, events and graphs belong to this context.
 */
public interface GreenContext extends AutoCloseable {
  String gpuUuid();

  /** SMs this context may use. */
  int smCount();

  /** Binds the context to the calling thread; every other call must come from that thread. */
  void makeCurrent() throws GpuException;

  /** Device memory; returns its device address. */
  long allocate(long bytes) throws GpuException;

  void free(long deviceAddress) throws GpuException;

  /** Pins host memory (a shared file mapping) so that copies from and to it are DMA. */
  void registerHost(MemorySegment hostMemory) throws GpuException;

  void unregisterHost(MemorySegment hostMemory) throws GpuException;

  /** Loads PTX, cubin or fatbin. */
  GpuModule loadModule(byte[] image) throws GpuException;

  GpuStream createStream() throws GpuException;

  GpuEvent createEvent() throws GpuException;

  /** An event that can also time the work between it and another ({@link GpuEvent#nanosSince}). */
  GpuEvent createTimedEvent() throws GpuException;

  /** Destroys the green context; its streams, modules, events and graphs must be closed first. */
  @Override
  void close();
}
