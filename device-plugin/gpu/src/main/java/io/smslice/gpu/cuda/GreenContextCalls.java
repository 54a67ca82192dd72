package io.smslice.gpu.cuda;

import io.smslice.gpu.GpuException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The driver calls JCuda 12.6 lacks (green contexts and SM resources), made through
 * java.lang.foreign on libcuda.so.1. Layout facts (CUdevResource is 144 bytes, SM fields from
 * offset 96) are from the CUDA 12.4+ headers and were checked on the H200 machine.
 */
final class GreenContextCalls {
  static final long RESOURCE_BYTES = 144;
  static final long SM_COUNT_OFFSET = 96;
  static final long MIN_PARTITION_OFFSET = 100;
  static final long ALIGNMENT_OFFSET = 104;
  static final int RESOURCE_TYPE_SM = 1;
  static final int GREEN_CTX_DEFAULT_STREAM = 1;

  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
  private static final AddressLayout ADDRESS = ValueLayout.ADDRESS;

  private final MethodHandle cuInit;
  private final MethodHandle cuDeviceGetCount;
  private final MethodHandle cuDeviceGet;
  private final MethodHandle cuDeviceGetDevResource;
  private final MethodHandle cuDevSmResourceSplitByCount;
  private final MethodHandle cuDevResourceGenerateDesc;
  private final MethodHandle cuGreenCtxCreate;
  private final MethodHandle cuGreenCtxDestroy;
  private final MethodHandle cuCtxFromGreenCtx;
  private final MethodHandle cuCtxSetCurrent;

  private GreenContextCalls(SymbolLookup cuda) {
    cuInit = bind(cuda, "cuInit", INT);
    cuDeviceGetCount = bind(cuda, "cuDeviceGetCount", ADDRESS);
    cuDeviceGet = bind(cuda, "cuDeviceGet", ADDRESS, INT);
    cuDeviceGetDevResource = bind(cuda, "cuDeviceGetDevResource", INT, ADDRESS, INT);
    cuDevSmResourceSplitByCount =
        bind(cuda, "cuDevSmResourceSplitByCount", ADDRESS, ADDRESS, ADDRESS, ADDRESS, INT, INT);
    cuDevResourceGenerateDesc = bind(cuda, "cuDevResourceGenerateDesc", ADDRESS, ADDRESS, INT);
    cuGreenCtxCreate = bind(cuda, "cuGreenCtxCreate", ADDRESS, ADDRESS, INT, INT);
    cuGreenCtxDestroy = bind(cuda, "cuGreenCtxDestroy", ADDRESS);
    cuCtxFromGreenCtx = bind(cuda, "cuCtxFromGreenCtx", ADDRESS, ADDRESS);
    cuCtxSetCurrent = bind(cuda, "cuCtxSetCurrent", ADDRESS);
  }

  /** The calls, when libcuda.so.1 loads and exports the green-context API; else why not. */
  static Optional<GreenContextCalls> load(StringBuilder whyNot) {
    try {
      return Optional.of(
          new GreenContextCalls(SymbolLookup.libraryLookup("libcuda.so.1", Arena.global())));
    } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
      whyNot.append(e.getMessage());
      return Optional.empty();
    }
  }

  private static MethodHandle bind(SymbolLookup cuda, String name, ValueLayout... args) {
    MemorySegment symbol =
        cuda.find(name)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "libcuda.so.1 does not export " + name + " (driver older than 12.4?)"));
    return Linker.nativeLinker().downcallHandle(symbol, FunctionDescriptor.of(INT, args));
  }

  private static int call(MethodHandle handle, Object... args) {
    try {
      return (int) handle.invokeWithArguments(args);
    } catch (Throwable t) {
      throw new IllegalStateException("native call failed", t);
    }
  }

  int init() {
    return call(cuInit, 0);
  }

  int deviceCount(Arena arena) throws GpuException {
    MemorySegment count = arena.allocate(INT);
    CudaErrors.check(call(cuDeviceGetCount, count), "cuDeviceGetCount");
    return count.get(INT, 0);
  }

  int device(Arena arena, int ordinal) throws GpuException {
    MemorySegment device = arena.allocate(INT);
    CudaErrors.check(call(cuDeviceGet, device, ordinal), "cuDeviceGet");
    return device.get(INT, 0);
  }

  /** The device's whole SM resource (one CUdevResource). */
  MemorySegment smResource(Arena arena, int device) throws GpuException {
    MemorySegment resource = arena.allocate(RESOURCE_BYTES, 8);
    CudaErrors.check(
        call(cuDeviceGetDevResource, device, resource, RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
    return resource;
  }

  /**
   * Splits {@code input} into groups of at least {@code minCount} SMs; returns the groups followed
   * by the remainder when it has SMs, as consecutive CUdevResources.
   */
  MemorySegment split(Arena arena, MemorySegment input, int minCount) throws GpuException {
    int capacity = Math.max(1, input.get(INT, SM_COUNT_OFFSET) / Math.max(1, minCount));
    MemorySegment groups = arena.allocate(RESOURCE_BYTES * (capacity + 1), 8);
    MemorySegment count = arena.allocate(INT);
    count.set(INT, 0, capacity);
    MemorySegment remainder = arena.allocate(RESOURCE_BYTES, 8);
    CudaErrors.check(
        call(cuDevSmResourceSplitByCount, groups, count, input, remainder, 0, minCount),
        "cuDevSmResourceSplitByCount");
    int made = count.get(INT, 0);
    long bytes = RESOURCE_BYTES * made;
    if (remainder.get(INT, SM_COUNT_OFFSET) > 0) {
      groups.asSlice(bytes, RESOURCE_BYTES).copyFrom(remainder);
      bytes += RESOURCE_BYTES;
    }
    return groups.asSlice(0, bytes);
  }

  /** A green context from consecutive CUdevResources of one split; returns the CUgreenCtx. */
  MemorySegment createGreenContext(Arena arena, MemorySegment resources, int device)
      throws GpuException {
    MemorySegment desc = arena.allocate(ADDRESS);
    CudaErrors.check(
        call(
            cuDevResourceGenerateDesc,
            desc,
            resources,
            (int) (resources.byteSize() / RESOURCE_BYTES)),
        "cuDevResourceGenerateDesc");
    MemorySegment green = arena.allocate(ADDRESS);
    CudaErrors.check(
        call(cuGreenCtxCreate, green, desc.get(ADDRESS, 0), device, GREEN_CTX_DEFAULT_STREAM),
        "cuGreenCtxCreate");
    return green.get(ADDRESS, 0);
  }

  /** The CUcontext that stands for a green context in ordinary driver calls. */
  MemorySegment contextOf(Arena arena, MemorySegment green) throws GpuException {
    MemorySegment context = arena.allocate(ADDRESS);
    CudaErrors.check(call(cuCtxFromGreenCtx, context, green), "cuCtxFromGreenCtx");
    return context.get(ADDRESS, 0);
  }

  void setCurrent(MemorySegment context) throws GpuException {
    CudaErrors.check(call(cuCtxSetCurrent, context), "cuCtxSetCurrent");
  }

  /** Leaves the calling thread without a current context; errors do not matter here. */
  void clearCurrent() {
    call(cuCtxSetCurrent, MemorySegment.NULL);
  }

  int destroyGreenContext(MemorySegment green) {
    return call(cuGreenCtxDestroy, green);
  }
}
