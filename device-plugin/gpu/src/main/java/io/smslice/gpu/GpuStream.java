package io.smslice.gpu;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** An in-order queue of GPU work inside one green context. */
public interface GpuStream extends AutoCloseable {
  void launch(GpuFunction function, LaunchGeometry geometry, List<KernelArg> args)
      throws GpuException;

  /** Host (a registered mapping) to device. */
  void copyToDevice(long deviceAddress, MemorySegment source) throws GpuException;

  /** Device to host (a registered mapping). */
  void copyToHost(MemorySegment target, long deviceAddress) throws GpuException;

  void copyDeviceToDevice(long target, long source, long bytes) throws GpuException;

  void fill(long deviceAddress, byte value, long bytes) throws GpuException;

  void record(GpuEvent event) throws GpuException;

  void waitFor(GpuEvent event) throws GpuException;

  void synchronize() throws GpuException;

  /** Starts recording this stream's work into a graph instead of running it. */
  void beginCapture() throws GpuException;

  GpuGraph endCapture() throws GpuException;

  void launchGraph(GpuGraph graph) throws GpuException;

  @Override
  void close();
}
