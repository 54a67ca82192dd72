package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.GroupSets;
import io.smslice.gpu.SplitGroup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GPUs that do not exist: a configurable inventory, and green contexts that run the built-in test
 * kernels' effects on the CPU and take their modelled GPU time asleep ({@link SimulatedClock}). For
 * CI and demos only; it always reports itself as simulated.
 */
public final class SimulatedBackend implements GpuBackend {
  public static final long GIB = 1L << 30;

  private final Map<String, SimulatedGpu> gpus = new LinkedHashMap<>();

  public SimulatedBackend(List<GpuDevice> devices) {
    for (GpuDevice device : devices) {
      if (gpus.put(device.uuid(), new SimulatedGpu(device)) != null) {
        throw new IllegalArgumentException("duplicate GPU UUID " + device.uuid());
      }
    }
  }

  /** {@code count} GPUs shaped like the H200 the project measured. */
  public static SimulatedBackend h200(int count) {
    List<GpuDevice> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      devices.add(h200Device(i));
    }
    return new SimulatedBackend(devices);
  }

  /**
   * {@code count} H200-shaped GPUs of one node, whose UUIDs carry a hash of the node's name: real
   * GPUs never share a UUID, and two simulated nodes of one cluster must not either.
   */
  public static SimulatedBackend h200(int count, String nodeName) {
    List<GpuDevice> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      GpuDevice d = h200Device(i);
      devices.add(
          new GpuDevice(
              d.index(),
              uuid(nodeName, i),
              d.product(),
              d.memoryBytes(),
              d.smCount(),
              d.minPartitionSize(),
              d.coscheduledAlignment(),
              d.split()));
    }
    return new SimulatedBackend(devices);
  }

  /**
   * One H200-shaped GPU with the given UUID (a worker process serves a claim on a GPU its node
   * simulates).
   */
  public static SimulatedBackend h200WithUuid(String uuid) {
    GpuDevice d = h200Device(0);
    return new SimulatedBackend(
        List.of(
            new GpuDevice(
                d.index(),
                uuid,
                d.product(),
                d.memoryBytes(),
                d.smCount(),
                d.minPartitionSize(),
                d.coscheduledAlignment(),
                d.split())));
  }

  /**
   * The UUID of a node's simulated GPU: {@code GPU-51a0a7ed-NNNN-4NNN-8000-<index>}, the middle
   * digits from the node name's hash ({@code 0000-4000} without a node, as {@link #h200Device}).
   */
  public static String uuid(String nodeName, int index) {
    int hash = nodeName == null ? 0 : nodeName.hashCode() & 0x0fffffff;
    return String.format("GPU-51a0a7ed-%04x-4%03x-8000-%012x", hash >>> 12, hash & 0xfff, index);
  }

  /** 132 SMs, minimum partition 8, split into 15 groups of 8 and a remainder of 12, 141 GiB. */
  public static GpuDevice h200Device(int index) {
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      sizes.add(8);
    }
    sizes.add(12);
    return device(index, "NVIDIA H200 (simulated)", 8, 141 * GIB, sizes);
  }

  /** A simulated GPU whose split has the given group sizes (remainder last). */
  public static GpuDevice device(
      int index, String product, int minPartition, long memoryBytes, List<Integer> groupSizes) {
    List<SplitGroup> split = new ArrayList<>();
    for (int i = 0; i < groupSizes.size(); i++) {
      split.add(new SplitGroup(i, groupSizes.get(i)));
    }
    int sms = groupSizes.stream().mapToInt(Integer::intValue).sum();
    String uuid = String.format("GPU-51a0a7ed-0000-4000-8000-%012x", index);
    return new GpuDevice(index, uuid, product, memoryBytes, sms, minPartition, minPartition, split);
  }

  /**
   * Whether green contexts partition the SMs (true, the default) or, as a "what if" without
   * slicing, every context's kernels use and wait for every SM of its GPU.
   */
  public void slicing(boolean on) {
    gpus.values().forEach(g -> g.clock.partitioned(on));
  }

  /** Whether {@code context} is a simulated green context, which {@link #gpuNanos} can read. */
  public static boolean isSimulated(GreenContext context) {
    return context instanceof SimulatedGreenContext;
  }

  /**
   * The modelled GPU time a green context of this backend has used so far: its kernels' waits for
   * their SMs plus their durations, free of the host's CPU scheduling (the wall clock is not).
   */
  public static long gpuNanos(GreenContext context) {
    if (!(context instanceof SimulatedGreenContext simulated)) {
      throw new IllegalArgumentException("not a simulated green context: " + context);
    }
    return simulated.gpuNanos();
  }

  @Override
  public String backendName() {
    return "simulated";
  }

  @Override
  public boolean simulated() {
    return true;
  }

  @Override
  public List<GpuDevice> devices() {
    return gpus.values().stream().map(g -> g.device).toList();
  }

  @Override
  public GreenContext createGreenContext(String gpuUuid, List<Integer> groupIds)
      throws GpuException {
    SimulatedGpu gpu = gpu(gpuUuid);
    return new SimulatedGreenContext(gpu, groupIds, GroupSets.smsOf(gpu.device, groupIds));
  }

  @Override
  public void resetDevice(String gpuUuid) throws GpuException {
    gpu(gpuUuid).reset();
  }

  private SimulatedGpu gpu(String uuid) throws GpuException {
    SimulatedGpu gpu = gpus.get(uuid);
    if (gpu == null) {
      device(uuid);
    }
    return gpu;
  }

  @Override
  public void close() {}
}
