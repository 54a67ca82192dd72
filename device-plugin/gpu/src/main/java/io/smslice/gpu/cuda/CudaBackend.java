package io.smslice.gpu.cuda;

import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDeviceGetUuid;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxReset;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;

import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.GroupSets;
import io.smslice.gpu.SplitGroup;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUuuid;
import jcuda.driver.JCudaDriver;

/**
 * The real GPUs, through the CUDA driver: JCuda for the ordinary driver API, java.lang.foreign for
 * green contexts. Each GPU is split once, into its smallest groups, when the backend opens; the
 * split results are kept for the backend's lifetime because the driver only combines groups of one
 * split into a green context.
 */
public final class CudaBackend implements GpuBackend {
  private static final System.Logger LOG = System.getLogger(CudaBackend.class.getName());

  private final GreenContextCalls calls;
  private final Arena arena = Arena.ofShared();
  private final Map<String, Gpu> gpus = new LinkedHashMap<>();

  /** One GPU: its device handle, inventory entry and split (groups, remainder last). */
  record Gpu(int ordinal, CUdevice device, GpuDevice info, MemorySegment split) {}

  private CudaBackend(GreenContextCalls calls) {
    this.calls = calls;
  }

  /**
   * The backend, when libcuda.so.1 loads, exports the green-context API and shows at least one
   * device; otherwise empty, with the reason appended to {@code whyNot}.
   */
  public static Optional<CudaBackend> open(StringBuilder whyNot) {
    Optional<GreenContextCalls> calls = GreenContextCalls.load(whyNot);
    if (calls.isEmpty()) {
      return Optional.empty();
    }
    int init = calls.get().init();
    if (init != 0) {
      whyNot.append("cuInit failed with CUDA error ").append(init);
      return Optional.empty();
    }
    CudaBackend backend = new CudaBackend(calls.get());
    try {
      backend.discover();
    } catch (GpuException | RuntimeException e) {
      backend.close();
      whyNot.append(e.getMessage());
      return Optional.empty();
    }
    if (backend.gpus.isEmpty()) {
      whyNot.append("the CUDA driver shows no devices");
      return Optional.empty();
    }
    return Optional.of(backend);
  }

  private void discover() throws GpuException {
    JCudaDriver.setExceptionsEnabled(false);
    CudaErrors.check(JCudaDriver.cuInit(0), "cuInit");
    int count = calls.deviceCount(arena);
    for (int ordinal = 0; ordinal < count; ordinal++) {
      Gpu gpu = describe(ordinal);
      gpus.put(gpu.info().uuid(), gpu);
      LOG.log(
          System.Logger.Level.INFO,
          "GPU {0} {1} {2}: {3} SMs, split {4}",
          ordinal,
          gpu.info().uuid(),
          gpu.info().product(),
          gpu.info().smCount(),
          gpu.info().split());
    }
  }

  private Gpu describe(int ordinal) throws GpuException {
    CUdevice device = new CUdevice();
    CudaErrors.check(cuDeviceGet(device, ordinal), "cuDeviceGet");
    byte[] name = new byte[256];
    CudaErrors.check(cuDeviceGetName(name, name.length, device), "cuDeviceGetName");
    CUuuid uuid = new CUuuid();
    CudaErrors.check(cuDeviceGetUuid(uuid, device), "cuDeviceGetUuid");
    long[] memory = new long[1];
    CudaErrors.check(cuDeviceTotalMem(memory, device), "cuDeviceTotalMem");
    // Green contexts are cheaper to make while the primary context is alive; keep it retained.
    CudaErrors.check(cuDevicePrimaryCtxRetain(new CUcontext(), device), "cuDevicePrimaryCtxRetain");

    int handle = calls.device(arena, ordinal);
    MemorySegment whole = calls.smResource(arena, handle);
    int sms = whole.get(ValueLayout.JAVA_INT, GreenContextCalls.SM_COUNT_OFFSET);
    int minPartition = whole.get(ValueLayout.JAVA_INT, GreenContextCalls.MIN_PARTITION_OFFSET);
    int alignment = whole.get(ValueLayout.JAVA_INT, GreenContextCalls.ALIGNMENT_OFFSET);
    MemorySegment split = calls.split(arena, whole, minPartition);
    List<SplitGroup> groups = new ArrayList<>();
    for (int i = 0; i < split.byteSize() / GreenContextCalls.RESOURCE_BYTES; i++) {
      long at = i * GreenContextCalls.RESOURCE_BYTES + GreenContextCalls.SM_COUNT_OFFSET;
      groups.add(new SplitGroup(i, split.get(ValueLayout.JAVA_INT, at)));
    }
    GpuDevice info =
        new GpuDevice(
            ordinal,
            "GPU-" + formatUuid(uuid.bytes),
            cString(name),
            memory[0],
            sms,
            minPartition,
            alignment,
            groups);
    return new Gpu(handle, device, info, split);
  }

  private static String formatUuid(byte[] bytes) {
    String hex = HexFormat.of().formatHex(bytes);
    return String.join(
        "-",
        hex.substring(0, 8),
        hex.substring(8, 12),
        hex.substring(12, 16),
        hex.substring(16, 20),
        hex.substring(20));
  }

  private static String cString(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.US_ASCII);
  }

  @Override
  public String backendName() {
    return "cuda";
  }

  @Override
  public boolean simulated() {
    return false;
  }

  @Override
  public List<GpuDevice> devices() {
    return gpus.values().stream().map(Gpu::info).toList();
  }

  @Override
  public GreenContext createGreenContext(String gpuUuid, List<Integer> groupIds)
      throws GpuException {
    Gpu gpu = gpu(gpuUuid);
    int sms = GroupSets.smsOf(gpu.info(), groupIds);
    return CudaGreenContext.create(calls, gpu, groupIds, sms);
  }

  /**
   * Resets the primary context (dropping every allocation and module) after a sticky fault, then
   * checks that the device takes work again and splits it anew (the same geometry, so claims keep
   * their group ids). Every green context of the GPU must have been destroyed before.
   */
  @Override
  public void resetDevice(String gpuUuid) throws GpuException {
    Gpu gpu = gpu(gpuUuid);
    CudaErrors.check(cuDevicePrimaryCtxReset(gpu.device()), "cuDevicePrimaryCtxReset");
    CUcontext primary = new CUcontext();
    CudaErrors.check(cuDevicePrimaryCtxRetain(primary, gpu.device()), "cuDevicePrimaryCtxRetain");
    try {
      CudaErrors.check(JCudaDriver.cuCtxSetCurrent(primary), "cuCtxSetCurrent after reset");
      CudaErrors.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize after reset");
    } finally {
      JCudaDriver.cuCtxSetCurrent(null);
      cuDevicePrimaryCtxRelease(gpu.device());
    }
    MemorySegment whole = calls.smResource(arena, gpu.ordinal());
    MemorySegment split = calls.split(arena, whole, gpu.info().minPartitionSize());
    if (split.byteSize() != gpu.split().byteSize()) {
      throw new GpuException(
          io.smslice.gpu.GpuError.DRIVER, "the SM split of " + gpuUuid + " changed after reset");
    }
    gpus.put(gpuUuid, new Gpu(gpu.ordinal(), gpu.device(), gpu.info(), split));
  }

  private Gpu gpu(String uuid) throws GpuException {
    Gpu gpu = gpus.get(uuid);
    if (gpu == null) {
      device(uuid);
    }
    return gpu;
  }

  @Override
  public void close() {
    for (Gpu gpu : gpus.values()) {
      cuDevicePrimaryCtxRelease(gpu.device());
    }
    gpus.clear();
  }
}
