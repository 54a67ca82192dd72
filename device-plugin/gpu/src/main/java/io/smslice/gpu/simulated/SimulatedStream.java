package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuGraph;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.gpu.simulated.SimulatedGreenContext.SimulatedFunction;
import io.smslice.gpu.simulated.SimulatedGreenContext.SimulatedWork;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated stream runs each operation when it is queued (which keeps stream order); while
 * capturing it records them into a graph instead.
 */
final class SimulatedStream implements GpuStream {
  private final SimulatedGreenContext context;
  private List<SimulatedWork> capture;

  SimulatedStream(SimulatedGreenContext context) {
    this.context = context;
  }

  private void submit(SimulatedWork work) throws GpuException {
    context.check();
    if (capture != null) {
      capture.add(work);
    } else {
      context.execute(work);
    }
  }

  @Override
  public void launch(GpuFunction function, LaunchGeometry geometry, List<KernelArg> args)
      throws GpuException {
    if (!(function instanceof SimulatedFunction simulated)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a simulated function: " + function);
    }
    List<KernelArg> copy = List.copyOf(args);
    submit(
        () ->
            SimulatedKernels.run(
                simulated.name(), geometry, copy, context.memory(), context.smIds()));
  }

  @Override
  public void copyToDevice(long deviceAddress, MemorySegment source) throws GpuException {
    submit(() -> context.memory().slice(deviceAddress, source.byteSize()).copyFrom(source));
  }

  @Override
  public void copyToHost(MemorySegment target, long deviceAddress) throws GpuException {
    submit(() -> target.copyFrom(context.memory().slice(deviceAddress, target.byteSize())));
  }

  @Override
  public void copyDeviceToDevice(long target, long source, long bytes) throws GpuException {
    submit(
        () ->
            context.memory().slice(target, bytes).copyFrom(context.memory().slice(source, bytes)));
  }

  @Override
  public void fill(long deviceAddress, byte value, long bytes) throws GpuException {
    submit(() -> context.memory().slice(deviceAddress, bytes).fill(value));
  }

  @Override
  public void record(GpuEvent event) throws GpuException {
    context.check();
  }

  @Override
  public void waitFor(GpuEvent event) throws GpuException {
    context.check();
  }

  @Override
  public void synchronize() throws GpuException {
    context.check();
  }

  @Override
  public void beginCapture() throws GpuException {
    if (capture != null) {
      throw new GpuException(GpuError.INVALID_VALUE, "stream is already capturing");
    }
    context.check();
    capture = new ArrayList<>();
  }

  @Override
  public GpuGraph endCapture() throws GpuException {
    if (capture == null) {
      throw new GpuException(GpuError.INVALID_VALUE, "stream is not capturing");
    }
    List<SimulatedWork> recorded = List.copyOf(capture);
    capture = null;
    return new SimulatedGraph(recorded);
  }

  @Override
  public void launchGraph(GpuGraph graph) throws GpuException {
    if (!(graph instanceof SimulatedGraph simulated)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a simulated graph: " + graph);
    }
    for (SimulatedWork work : simulated.work) {
      submit(work);
    }
  }

  @Override
  public void close() {}

  private record SimulatedGraph(List<SimulatedWork> work) implements GpuGraph {
    @Override
    public void close() {}
  }
}
