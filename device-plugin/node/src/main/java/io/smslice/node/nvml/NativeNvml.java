package io.smslice.node.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * NVML through java.lang.foreign: GPUs, MIG devices, health and Xid events from libnvidia-ml.so.1.
 * Health combines a poll (GPU lost, retired pages pending, row remapping pending or failed) with
 * the Xid event stream; deciding which Xids matter is left to the caller.
 */
public final class NativeNvml implements Nvml {
  private static final Logger LOG = Logger.getLogger(NativeNvml.class.getName());
  private static final int MIG_ENABLED = 1;
  // nvmlDeviceAttributes_t: eight unsigned ints, then memorySizeMB (unsigned long long) at 32.
  private static final long ATTRIBUTES_SIZE = 40;
  private static final long ATTRIBUTES_MEMORY_MB = 32;
  // nvmlEventData_t: device pointer, eventType, eventData, gpuInstanceId, computeInstanceId.
  private static final long EVENT_SIZE = 32;
  // nvmlProcessInfo_t (v2/v3): pid, (pad), usedGpuMemory, gpuInstanceId, computeInstanceId.
  private static final long PROCESS_SIZE = 24;
  private static final long PROCESS_MEMORY = 8;
  private static final long MEMORY_NOT_AVAILABLE = -1L; // NVML_VALUE_NOT_AVAILABLE as a long

  private final NvmlCalls nvml;
  private final Map<Long, String> uuidByHandle = new ConcurrentHashMap<>();
  private MemorySegment eventSet;

  private NativeNvml(NvmlCalls nvml) {
    this.nvml = nvml;
  }

  /** Loads and initialises NVML; fails with a message that says what is missing. */
  public static NativeNvml open() {
    NvmlCalls calls;
    try {
      calls = new NvmlCalls("libnvidia-ml.so.1");
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "libnvidia-ml.so.1 cannot be loaded: run on a node with the NVIDIA driver, with the"
              + " driver libraries mounted (LD_LIBRARY_PATH), or use backend: simulated",
          e);
    }
    calls.check("nvmlInit_v2", calls.init);
    return new NativeNvml(calls);
  }

  @Override
  public String driverVersion() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment buf = arena.allocate(NvmlCalls.BUFFER);
      nvml.check("nvmlSystemGetDriverVersion", nvml.driverVersion, buf, NvmlCalls.BUFFER);
      return buf.getString(0);
    }
  }

  @Override
  public List<NvmlGpu> gpus() {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment count = arena.allocate(JAVA_INT);
      nvml.check("nvmlDeviceGetCount_v2", nvml.deviceCount, count);
      List<NvmlGpu> result = new ArrayList<>();
      for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
        MemorySegment handle = handleByIndex(arena, i);
        String uuid = string(arena, "nvmlDeviceGetUUID", nvml.uuid, handle);
        uuidByHandle.put(handle.address(), uuid);
        MemorySegment minor = arena.allocate(JAVA_INT);
        nvml.check("nvmlDeviceGetMinorNumber", nvml.minorNumber, handle, minor);
        boolean mig = migEnabled(arena, handle);
        result.add(
            new NvmlGpu(
                i,
                uuid,
                string(arena, "nvmlDeviceGetName", nvml.name, handle),
                totalMemory(arena, handle),
                minor.get(JAVA_INT, 0),
                mig,
                mig ? migDevices(arena, handle) : List.of()));
      }
      return result;
    }
  }

  private MemorySegment handleByIndex(Arena arena, int index) {
    MemorySegment out = arena.allocate(ADDRESS);
    nvml.check("nvmlDeviceGetHandleByIndex_v2(" + index + ")", nvml.handleByIndex, index, out);
    return out.get(ADDRESS, 0);
  }

  private boolean migEnabled(Arena arena, MemorySegment handle) {
    MemorySegment current = arena.allocate(JAVA_INT);
    MemorySegment pending = arena.allocate(JAVA_INT);
    int rc = nvml.call(nvml.migMode, handle, current, pending);
    if (rc == NvmlCalls.ERROR_NOT_SUPPORTED) {
      return false;
    }
    if (rc != NvmlCalls.SUCCESS) {
      throw new NvmlException("nvmlDeviceGetMigMode", rc, nvml.describe(rc));
    }
    return current.get(JAVA_INT, 0) == MIG_ENABLED;
  }

  private List<NvmlMigDevice> migDevices(Arena arena, MemorySegment parent) {
    MemorySegment max = arena.allocate(JAVA_INT);
    nvml.check("nvmlDeviceGetMaxMigDeviceCount", nvml.maxMigDeviceCount, parent, max);
    List<NvmlMigDevice> result = new ArrayList<>();
    for (int i = 0; i < max.get(JAVA_INT, 0); i++) {
      MemorySegment out = arena.allocate(ADDRESS);
      int rc = nvml.call(nvml.migDeviceByIndex, parent, i, out);
      if (rc == NvmlCalls.ERROR_NOT_FOUND) {
        continue; // an empty slot: fewer instances than the maximum
      }
      if (rc != NvmlCalls.SUCCESS) {
        throw new NvmlException("nvmlDeviceGetMigDeviceHandleByIndex", rc, nvml.describe(rc));
      }
      MemorySegment mig = out.get(ADDRESS, 0);
      MemorySegment attrs = arena.allocate(ATTRIBUTES_SIZE, 8);
      nvml.check("nvmlDeviceGetAttributes", nvml.attributes, mig, attrs);
      MemorySegment gi = arena.allocate(JAVA_INT);
      MemorySegment ci = arena.allocate(JAVA_INT);
      nvml.check("nvmlDeviceGetGpuInstanceId", nvml.gpuInstanceId, mig, gi);
      nvml.check("nvmlDeviceGetComputeInstanceId", nvml.computeInstanceId, mig, ci);
      String name = string(arena, "nvmlDeviceGetName", nvml.name, mig);
      int gpuSlices = attrs.get(JAVA_INT, 24);
      long memoryMb = attrs.get(JAVA_LONG, ATTRIBUTES_MEMORY_MB);
      result.add(
          new NvmlMigDevice(
              string(arena, "nvmlDeviceGetUUID", nvml.uuid, mig),
              MigProfiles.fromName(name).orElse(MigProfiles.fromSlices(gpuSlices, memoryMb)),
              attrs.get(JAVA_INT, 0),
              memoryMb * 1024 * 1024,
              gi.get(JAVA_INT, 0),
              ci.get(JAVA_INT, 0)));
    }
    return result;
  }

  private long totalMemory(Arena arena, MemorySegment handle) {
    MemorySegment memory = arena.allocate(3 * 8, 8); // nvmlMemory_t: total, free, used
    nvml.check("nvmlDeviceGetMemoryInfo", nvml.memoryInfo, handle, memory);
    return memory.get(JAVA_LONG, 0);
  }

  private String string(
      Arena arena, String what, java.lang.invoke.MethodHandle fn, MemorySegment handle) {
    MemorySegment buf = arena.allocate(NvmlCalls.BUFFER);
    nvml.check(what, fn, handle, buf, NvmlCalls.BUFFER);
    return buf.getString(0);
  }

  @Override
  public Optional<String> healthProblem(String gpuUuid) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      int rc = nvml.call(nvml.handleByUuid, arena.allocateFrom(gpuUuid), out);
      if (rc == NvmlCalls.ERROR_GPU_IS_LOST) {
        return Optional.of(
            "GPU is lost (fallen off the bus); the node needs a reboot or GPU reset");
      }
      if (rc != NvmlCalls.SUCCESS) {
        return Optional.of("NVML cannot open the GPU: " + nvml.describe(rc));
      }
      MemorySegment handle = out.get(ADDRESS, 0);
      MemorySegment memory = arena.allocate(3 * 8, 8);
      rc = nvml.call(nvml.memoryInfo, handle, memory);
      if (rc == NvmlCalls.ERROR_GPU_IS_LOST) {
        return Optional.of(
            "GPU is lost (fallen off the bus); the node needs a reboot or GPU reset");
      }
      MemorySegment pending = arena.allocate(JAVA_INT);
      if (nvml.call(nvml.retiredPagesPending, handle, pending) == NvmlCalls.SUCCESS
          && pending.get(JAVA_INT, 0) != 0) {
        return Optional.of("retired memory pages are pending; reset the GPU to retire them");
      }
      MemorySegment corrected = arena.allocate(JAVA_INT);
      MemorySegment uncorrected = arena.allocate(JAVA_INT);
      MemorySegment remapPending = arena.allocate(JAVA_INT);
      MemorySegment remapFailed = arena.allocate(JAVA_INT);
      if (nvml.call(nvml.remappedRows, handle, corrected, uncorrected, remapPending, remapFailed)
          == NvmlCalls.SUCCESS) {
        if (remapFailed.get(JAVA_INT, 0) != 0) {
          return Optional.of("row remapping failed; the GPU needs service");
        }
        if (remapPending.get(JAVA_INT, 0) != 0) {
          return Optional.of("row remapping is pending; reset the GPU to apply it");
        }
      }
      return Optional.empty();
    }
  }

  @Override
  public List<GpuProcess> computeProcesses(String gpuUuid) {
    Map<Integer, GpuProcess> byPid = new java.util.LinkedHashMap<>();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      if (nvml.call(nvml.handleByUuid, arena.allocateFrom(gpuUuid), out) != NvmlCalls.SUCCESS) {
        return List.of();
      }
      MemorySegment handle = out.get(ADDRESS, 0);
      for (var fn : List.of(nvml.computeProcesses, nvml.mpsComputeProcesses)) {
        if (fn.isPresent()) {
          processes(arena, fn.get(), handle).forEach(p -> byPid.putIfAbsent(p.pid(), p));
        }
      }
    }
    return List.copyOf(byPid.values());
  }

  @Override
  public Optional<GpuActivity> activity(String gpuUuid) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      if (nvml.call(nvml.handleByUuid, arena.allocateFrom(gpuUuid), out) != NvmlCalls.SUCCESS) {
        return Optional.empty();
      }
      MemorySegment handle = out.get(ADDRESS, 0);
      MemorySegment clock = arena.allocate(JAVA_INT);
      MemorySegment power = arena.allocate(JAVA_INT);
      MemorySegment reasons = arena.allocate(JAVA_LONG);
      MemorySegment utilization = arena.allocate(JAVA_INT, 2);
      long mhz =
          nvml.clockInfo.isPresent()
                  && nvml.call(nvml.clockInfo.get(), handle, NvmlCalls.CLOCK_SM, clock)
                      == NvmlCalls.SUCCESS
              ? Integer.toUnsignedLong(clock.get(JAVA_INT, 0))
              : -1;
      long milliwatts =
          nvml.powerUsage.isPresent()
                  && nvml.call(nvml.powerUsage.get(), handle, power) == NvmlCalls.SUCCESS
              ? Integer.toUnsignedLong(power.get(JAVA_INT, 0))
              : -1;
      long mask =
          nvml.clockEventReasons.isPresent()
                  && nvml.call(nvml.clockEventReasons.get(), handle, reasons) == NvmlCalls.SUCCESS
              ? reasons.get(JAVA_LONG, 0)
              : -1;
      // The second word: the percent of the last sample period device memory was read or written.
      int memoryBusy =
          nvml.utilizationRates.isPresent()
                  && nvml.call(nvml.utilizationRates.get(), handle, utilization)
                      == NvmlCalls.SUCCESS
              ? utilization.getAtIndex(JAVA_INT, 1)
              : -1;
      return Optional.of(new GpuActivity(mhz, milliwatts, mask, memoryBusy));
    }
  }

  private List<GpuProcess> processes(
      Arena arena, java.lang.invoke.MethodHandle fn, MemorySegment handle) {
    MemorySegment count = arena.allocate(JAVA_INT);
    int rc = nvml.call(fn, handle, count, MemorySegment.NULL);
    if (rc == NvmlCalls.SUCCESS) {
      return List.of(); // none
    }
    if (rc != NvmlCalls.ERROR_INSUFFICIENT_SIZE) {
      return List.of();
    }
    // Room for a few more: processes may start between the two calls.
    int room = count.get(JAVA_INT, 0) + 8;
    count.set(JAVA_INT, 0, room);
    MemorySegment infos = arena.allocate(PROCESS_SIZE * room, 8);
    if (nvml.call(fn, handle, count, infos) != NvmlCalls.SUCCESS) {
      return List.of();
    }
    List<GpuProcess> result = new ArrayList<>();
    for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
      long memory = infos.get(JAVA_LONG, i * PROCESS_SIZE + PROCESS_MEMORY);
      result.add(
          new GpuProcess(
              infos.get(JAVA_INT, i * PROCESS_SIZE), memory == MEMORY_NOT_AVAILABLE ? -1 : memory));
    }
    return result;
  }

  @Override
  public Optional<XidEvent> awaitXid(Duration timeout) throws InterruptedException {
    MemorySegment set = eventSet();
    if (set == null) {
      Thread.sleep(timeout); // no GPU supports Xid events: health comes from the poll alone
      return Optional.empty();
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment data = arena.allocate(EVENT_SIZE, 8);
      int rc = nvml.call(nvml.eventSetWait, set, data, (int) timeout.toMillis());
      if (rc == NvmlCalls.ERROR_TIMEOUT) {
        return Optional.empty();
      }
      if (rc != NvmlCalls.SUCCESS) {
        throw new NvmlException("nvmlEventSetWait_v2", rc, nvml.describe(rc));
      }
      if ((data.get(JAVA_LONG, 8) & NvmlCalls.EVENT_XID_CRITICAL) == 0) {
        return Optional.empty();
      }
      String uuid = uuidByHandle.getOrDefault(data.get(ADDRESS, 0).address(), "unknown");
      return Optional.of(new XidEvent(uuid, data.get(JAVA_LONG, 16)));
    }
  }

  /** The event set with every GPU that supports Xid events registered, made on first use. */
  private synchronized MemorySegment eventSet() {
    if (eventSet != null) {
      return eventSet.equals(MemorySegment.NULL) ? null : eventSet;
    }
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment out = arena.allocate(ADDRESS);
      nvml.check("nvmlEventSetCreate", nvml.eventSetCreate, out);
      MemorySegment set = out.get(ADDRESS, 0);
      MemorySegment count = arena.allocate(JAVA_INT);
      nvml.check("nvmlDeviceGetCount_v2", nvml.deviceCount, count);
      int registered = 0;
      for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
        MemorySegment handle = handleByIndex(arena, i);
        uuidByHandle.computeIfAbsent(
            handle.address(), a -> string(arena, "nvmlDeviceGetUUID", nvml.uuid, handle));
        int rc = nvml.call(nvml.registerEvents, handle, NvmlCalls.EVENT_XID_CRITICAL, set);
        if (rc == NvmlCalls.SUCCESS) {
          registered++;
        } else {
          LOG.warning("GPU " + i + " gives no Xid events: " + nvml.describe(rc));
        }
      }
      eventSet = registered > 0 ? set : MemorySegment.NULL;
      return registered > 0 ? set : null;
    }
  }

  @Override
  public synchronized void close() {
    if (eventSet != null && !eventSet.equals(MemorySegment.NULL)) {
      nvml.call(nvml.eventSetFree, eventSet);
    }
    nvml.call(nvml.shutdown);
  }
}
