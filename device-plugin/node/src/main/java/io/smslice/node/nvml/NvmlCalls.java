package io.smslice.node.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Downcall handles into libnvidia-ml.so.1. Only this class and {@link NativeNvml} touch native
 * memory; every call returns an nvmlReturn_t that {@link #check} turns into an exception.
 */
final class NvmlCalls {
  static final int SUCCESS = 0;
  static final int ERROR_NOT_SUPPORTED = 3;
  static final int ERROR_NOT_FOUND = 6;
  static final int ERROR_INSUFFICIENT_SIZE = 7;
  static final int ERROR_TIMEOUT = 10;
  static final int ERROR_GPU_IS_LOST = 15;

  static final long EVENT_XID_CRITICAL = 0x8L;
  static final int CLOCK_SM = 1;
  static final int BUFFER = 96;

  private final Linker linker = Linker.nativeLinker();
  private final SymbolLookup lib;

  final MethodHandle init;
  final MethodHandle shutdown;
  final MethodHandle errorString;
  final MethodHandle driverVersion;
  final MethodHandle deviceCount;
  final MethodHandle handleByIndex;
  final MethodHandle handleByUuid;
  final MethodHandle uuid;
  final MethodHandle name;
  final MethodHandle memoryInfo;
  final MethodHandle minorNumber;
  final MethodHandle migMode;
  final MethodHandle maxMigDeviceCount;
  final MethodHandle migDeviceByIndex;
  final MethodHandle attributes;
  final MethodHandle gpuInstanceId;
  final MethodHandle computeInstanceId;
  final MethodHandle retiredPagesPending;
  final MethodHandle remappedRows;
  final MethodHandle eventSetCreate;
  final MethodHandle registerEvents;
  final MethodHandle eventSetWait;
  final MethodHandle eventSetFree;

  /** nvmlDeviceGet(MPS)ComputeRunningProcesses, newest version the driver has; may be absent. */
  final Optional<MethodHandle> computeProcesses;

  final Optional<MethodHandle> mpsComputeProcesses;

  /** Clocks and power; optional so that a driver without one still gives the rest. */
  final Optional<MethodHandle> clockInfo;

  final Optional<MethodHandle> powerUsage;

  /** nvmlDeviceGetCurrentClocksEventReasons, or its older name ...ThrottleReasons. */
  final Optional<MethodHandle> clockEventReasons;

  /** nvmlDeviceGetUtilizationRates: nvmlUtilization_t {unsigned int gpu, memory}, percent. */
  final Optional<MethodHandle> utilizationRates;

  NvmlCalls(String library) {
    lib = SymbolLookup.libraryLookup(library, Arena.global());
    init = fn("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT));
    shutdown = fn("nvmlShutdown", FunctionDescriptor.of(JAVA_INT));
    errorString = fn("nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    driverVersion =
        fn("nvmlSystemGetDriverVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    deviceCount = fn("nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    handleByIndex =
        fn("nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    handleByUuid =
        fn("nvmlDeviceGetHandleByUUID", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    uuid = fn("nvmlDeviceGetUUID", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    name = fn("nvmlDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    memoryInfo = fn("nvmlDeviceGetMemoryInfo", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    minorNumber = fn("nvmlDeviceGetMinorNumber", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    migMode =
        fn("nvmlDeviceGetMigMode", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    maxMigDeviceCount =
        fn("nvmlDeviceGetMaxMigDeviceCount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    migDeviceByIndex =
        fn(
            "nvmlDeviceGetMigDeviceHandleByIndex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    attributes =
        optional("nvmlDeviceGetAttributes_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS))
            .orElseGet(
                () ->
                    fn(
                        "nvmlDeviceGetAttributes",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)));
    gpuInstanceId =
        fn("nvmlDeviceGetGpuInstanceId", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    computeInstanceId =
        fn("nvmlDeviceGetComputeInstanceId", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    retiredPagesPending =
        fn(
            "nvmlDeviceGetRetiredPagesPendingStatus",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    remappedRows =
        fn(
            "nvmlDeviceGetRemappedRows",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    eventSetCreate = fn("nvmlEventSetCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    registerEvents =
        fn(
            "nvmlDeviceRegisterEvents",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    eventSetWait =
        fn("nvmlEventSetWait_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    eventSetFree = fn("nvmlEventSetFree", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    FunctionDescriptor processes = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    computeProcesses = optional("nvmlDeviceGetComputeRunningProcesses_v3", processes);
    mpsComputeProcesses = optional("nvmlDeviceGetMPSComputeRunningProcesses_v3", processes);
    clockInfo =
        optional(
            "nvmlDeviceGetClockInfo", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    powerUsage =
        optional("nvmlDeviceGetPowerUsage", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    FunctionDescriptor reasons = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS);
    clockEventReasons =
        optional("nvmlDeviceGetCurrentClocksEventReasons", reasons)
            .or(() -> optional("nvmlDeviceGetCurrentClocksThrottleReasons", reasons));
    utilizationRates = optional("nvmlDeviceGetUtilizationRates", reasons);
  }

  private MethodHandle fn(String symbol, FunctionDescriptor descriptor) {
    return optional(symbol, descriptor)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    symbol + " is not exported by libnvidia-ml.so.1: update the NVIDIA driver"));
  }

  private Optional<MethodHandle> optional(String symbol, FunctionDescriptor descriptor) {
    return lib.find(symbol).map(address -> linker.downcallHandle(address, descriptor));
  }

  /** Invokes a call that returns nvmlReturn_t. */
  int call(MethodHandle handle, Object... args) {
    try {
      return (int) handle.invokeWithArguments(args);
    } catch (Throwable t) {
      throw new IllegalStateException("NVML call failed: " + t, t);
    }
  }

  /** Invokes a call and throws, with NVML's own words, unless it succeeded. */
  void check(String what, MethodHandle handle, Object... args) {
    int rc = call(handle, args);
    if (rc != SUCCESS) {
      throw new NvmlException(what, rc, describe(rc));
    }
  }

  String describe(int rc) {
    try {
      MemorySegment text = (MemorySegment) errorString.invokeExact(rc);
      return text.reinterpret(256).getString(0);
    } catch (Throwable t) {
      return "NVML error " + rc;
    }
  }
}
