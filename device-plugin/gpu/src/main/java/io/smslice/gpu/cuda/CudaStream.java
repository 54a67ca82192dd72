package io.smslice.gpu.cuda;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuGraph;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.gpu.cuda.CudaGreenContext.CudaEvent;
import io.smslice.gpu.cuda.CudaGreenContext.CudaFunction;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import jcuda.Pointer;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;

/** A stream of a green context; every call must come from the thread the context is current on. */
final class CudaStream implements GpuStream {
  private static final long SPIN_NANOS = 1_000_000;
  private static final long MIN_BACKOFF_NANOS = 20_000;
  private static final long MAX_BACKOFF_NANOS = 500_000;

  private final CUstream stream;

  CudaStream(CUstream stream) {
    this.stream = stream;
  }

  @Override
  public void launch(GpuFunction function, LaunchGeometry g, List<KernelArg> args)
      throws GpuException {
    if (!(function instanceof CudaFunction cuda)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a CUDA function: " + function);
    }
    Pointer[] params = new Pointer[args.size()];
    for (int i = 0; i < params.length; i++) {
      params[i] =
          switch (args.get(i)) {
            case KernelArg.Pointer p -> Pointer.to(new long[] {p.address()});
            case KernelArg.I32 v -> Pointer.to(new int[] {v.value()});
            case KernelArg.I64 v -> Pointer.to(new long[] {v.value()});
            case KernelArg.F32 v -> Pointer.to(new float[] {v.value()});
            case KernelArg.F64 v -> Pointer.to(new double[] {v.value()});
          };
    }
    CudaErrors.check(
        cuLaunchKernel(
            cuda.function(),
            g.gridX(),
            g.gridY(),
            g.gridZ(),
            g.blockX(),
            g.blockY(),
            g.blockZ(),
            g.sharedBytes(),
            stream,
            params.length == 0 ? null : Pointer.to(params),
            null),
        "cuLaunchKernel " + cuda.name());
  }

  @Override
  public void copyToDevice(long deviceAddress, MemorySegment source) throws GpuException {
    CudaErrors.check(
        cuMemcpyHtoDAsync(
            DevicePointers.of(deviceAddress),
            Pointer.to(source.asByteBuffer()),
            source.byteSize(),
            stream),
        "cuMemcpyHtoDAsync");
  }

  @Override
  public void copyToHost(MemorySegment target, long deviceAddress) throws GpuException {
    CudaErrors.check(
        cuMemcpyDtoHAsync(
            Pointer.to(target.asByteBuffer()),
            DevicePointers.of(deviceAddress),
            target.byteSize(),
            stream),
        "cuMemcpyDtoHAsync");
  }

  @Override
  public void copyDeviceToDevice(long target, long source, long bytes) throws GpuException {
    CudaErrors.check(
        cuMemcpyDtoDAsync(DevicePointers.of(target), DevicePointers.of(source), bytes, stream),
        "cuMemcpyDtoDAsync");
  }

  @Override
  public void fill(long deviceAddress, byte value, long bytes) throws GpuException {
    CudaErrors.check(
        cuMemsetD8Async(DevicePointers.of(deviceAddress), value, bytes, stream), "cuMemsetD8Async");
  }

  @Override
  public void record(GpuEvent event) throws GpuException {
    CudaErrors.check(cuEventRecord(((CudaEvent) event).event(), stream), "cuEventRecord");
  }

  @Override
  public void waitFor(GpuEvent event) throws GpuException {
    CudaErrors.check(
        cuStreamWaitEvent(stream, ((CudaEvent) event).event(), 0), "cuStreamWaitEvent");
  }

  /**
   * Polls instead of blocking in the driver: short waits spin (lowest latency), long ones back off
   * exponentially, so that a claim running long kernels neither keeps a CPU core busy nor keeps
   * taking the driver's locks that other claims' launches need.
   */
  @Override
  public void synchronize() throws GpuException {
    long start = System.nanoTime();
    long backoff = MIN_BACKOFF_NANOS;
    int result;
    while ((result = cuStreamQuery(stream)) == CUresult.CUDA_ERROR_NOT_READY) {
      if (System.nanoTime() - start < SPIN_NANOS) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(backoff);
        backoff = Math.min(2 * backoff, MAX_BACKOFF_NANOS);
      }
    }
    CudaErrors.check(result, "cuStreamSynchronize");
  }

  @Override
  public void beginCapture() throws GpuException {
    CudaErrors.check(
        cuStreamBeginCapture(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
  }

  @Override
  public GpuGraph endCapture() throws GpuException {
    CUgraph graph = new CUgraph();
    CudaErrors.check(cuStreamEndCapture(stream, graph), "cuStreamEndCapture");
    CUgraphExec exec = new CUgraphExec();
    int result = cuGraphInstantiate(exec, graph, 0);
    if (result != 0) {
      cuGraphDestroy(graph);
    }
    CudaErrors.check(result, "cuGraphInstantiate");
    return new CudaGraph(graph, exec);
  }

  @Override
  public void launchGraph(GpuGraph graph) throws GpuException {
    CudaErrors.check(cuGraphLaunch(((CudaGraph) graph).exec(), stream), "cuGraphLaunch");
  }

  @Override
  public void close() {
    cuStreamDestroy(stream);
  }

  private record CudaGraph(CUgraph graph, CUgraphExec exec) implements GpuGraph {
    @Override
    public void close() {
      cuGraphExecDestroy(exec);
      cuGraphDestroy(graph);
    }
  }
}
