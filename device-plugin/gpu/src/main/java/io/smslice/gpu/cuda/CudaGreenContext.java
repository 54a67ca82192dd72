package io.smslice.gpu.cuda;

import static jcuda.driver.JCudaDriver.CU_MEMHOSTREGISTER_PORTABLE;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;

import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * A green context of a real GPU. Once {@link #makeCurrent()} ran on a thread, JCuda's ordinary
 * calls on that thread act in this context, and the streams made here are confined to its SMs.
 */
final class CudaGreenContext implements GreenContext {
  private static final System.Logger LOG = System.getLogger(CudaGreenContext.class.getName());

  private final GreenContextCalls calls;
  private final CudaBackend.Gpu gpu;
  private final List<Integer> groupIds;
  private final int sms;
  private final MemorySegment green;
  private final MemorySegment context;

  private CudaGreenContext(
      GreenContextCalls calls,
      CudaBackend.Gpu gpu,
      List<Integer> groupIds,
      int sms,
      MemorySegment green,
      MemorySegment context) {
    this.calls = calls;
    this.gpu = gpu;
    this.groupIds = List.copyOf(groupIds);
    this.sms = sms;
    this.green = green;
    this.context = context;
  }

  static CudaGreenContext create(
      GreenContextCalls calls, CudaBackend.Gpu gpu, List<Integer> groupIds, int sms)
      throws GpuException {
    try (Arena arena = Arena.ofConfined()) {
      long size = GreenContextCalls.RESOURCE_BYTES;
      MemorySegment resources = arena.allocate(size * groupIds.size(), 8);
      for (int i = 0; i < groupIds.size(); i++) {
        resources
            .asSlice(i * size, size)
            .copyFrom(gpu.split().asSlice(groupIds.get(i) * size, size));
      }
      MemorySegment green = calls.createGreenContext(arena, resources, gpu.ordinal());
      MemorySegment context;
      try {
        context = calls.contextOf(arena, green);
      } catch (GpuException e) {
        calls.destroyGreenContext(green);
        throw e;
      }
      return new CudaGreenContext(calls, gpu, groupIds, sms, green, context);
    }
  }

  @Override
  public String gpuUuid() {
    return gpu.info().uuid();
  }

  @Override
  public int smCount() {
    return sms;
  }

  @Override
  public void makeCurrent() throws GpuException {
    calls.setCurrent(context);
  }

  @Override
  public long allocate(long bytes) throws GpuException {
    CUdeviceptr pointer = new CUdeviceptr();
    CudaErrors.check(cuMemAlloc(pointer, bytes), "cuMemAlloc");
    return DevicePointers.address(pointer);
  }

  @Override
  public void free(long deviceAddress) throws GpuException {
    CudaErrors.check(cuMemFree(DevicePointers.of(deviceAddress)), "cuMemFree");
  }

  /**
   * Portable: the pages count as pinned in every context, so a resize needs no new registration.
   */
  @Override
  public void registerHost(MemorySegment hostMemory) throws GpuException {
    CudaErrors.check(
        cuMemHostRegister(
            Pointer.to(hostMemory.asByteBuffer()),
            hostMemory.byteSize(),
            CU_MEMHOSTREGISTER_PORTABLE),
        "cuMemHostRegister");
  }

  @Override
  public void unregisterHost(MemorySegment hostMemory) throws GpuException {
    CudaErrors.check(
        cuMemHostUnregister(Pointer.to(hostMemory.asByteBuffer())), "cuMemHostUnregister");
  }

  @Override
  public GpuModule loadModule(byte[] image) throws GpuException {
    // PTX must be NUL-terminated; a trailing zero does not disturb cubin or fatbin images.
    byte[] terminated = Arrays.copyOf(image, image.length + 1);
    CUmodule module = new CUmodule();
    CudaErrors.check(cuModuleLoadData(module, terminated), "cuModuleLoadData");
    return new CudaModule(module);
  }

  @Override
  public GpuStream createStream() throws GpuException {
    CUstream stream = new CUstream();
    CudaErrors.check(
        cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return new CudaStream(stream);
  }

  @Override
  public GpuEvent createEvent() throws GpuException {
    return event(CUevent_flags.CU_EVENT_DISABLE_TIMING);
  }

  @Override
  public GpuEvent createTimedEvent() throws GpuException {
    return event(CUevent_flags.CU_EVENT_DEFAULT);
  }

  private static GpuEvent event(int flags) throws GpuException {
    CUevent event = new CUevent();
    CudaErrors.check(cuEventCreate(event, flags), "cuEventCreate");
    return new CudaEvent(event);
  }

  /** Unbinds the context from the calling thread, so no thread is left on a destroyed one. */
  @Override
  public void close() {
    calls.clearCurrent();
    int result = calls.destroyGreenContext(green);
    if (result != 0) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cuGreenCtxDestroy of groups {0} returned CUDA error {1}",
          groupIds,
          result);
    }
  }

  record CudaFunction(String name, CUfunction function) implements GpuFunction {}

  private record CudaModule(CUmodule module) implements GpuModule {
    @Override
    public GpuFunction function(String name) throws GpuException {
      CUfunction function = new CUfunction();
      CudaErrors.check(cuModuleGetFunction(function, module, name), "cuModuleGetFunction " + name);
      return new CudaFunction(name, function);
    }

    @Override
    public void close() {
      cuModuleUnload(module);
    }
  }

  record CudaEvent(CUevent event) implements GpuEvent {
    @Override
    public void synchronize() throws GpuException {
      CudaErrors.check(cuEventSynchronize(event), "cuEventSynchronize");
    }

    @Override
    public boolean query() throws GpuException {
      int result = cuEventQuery(event);
      if (result == CUresult.CUDA_ERROR_NOT_READY) {
        return false;
      }
      CudaErrors.check(result, "cuEventQuery");
      return true;
    }

    @Override
    public long nanosSince(GpuEvent start) throws GpuException {
      float[] millis = new float[1];
      CudaErrors.check(
          cuEventElapsedTime(millis, ((CudaEvent) start).event, event), "cuEventElapsedTime");
      return (long) (millis[0] * 1e6);
    }

    @Override
    public void close() {
      cuEventDestroy(event);
    }
  }
}
