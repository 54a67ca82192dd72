package io.smslice.node.nvml;

import io.smslice.gpu.GpuDevice;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * NVML for nodes without a GPU (CI, the demo): the GPUs it is given, health problems and Xid errors
 * injected by whoever drives it. It says what it is: its driver version reads "simulated". Its
 * clocks and power are {@link #NOMINAL} on every GPU until set: constants, not a model of load.
 */
public final class SimulatedNvml implements Nvml {
  /** H200's maximum SM clock (1980 MHz), a steady 100 W and no clock-event reason. */
  public static final GpuActivity NOMINAL = new GpuActivity(1980, 100_000, 0);

  private final List<NvmlGpu> gpus;
  private final Map<String, String> problems = new ConcurrentHashMap<>();
  private final BlockingQueue<XidEvent> xids = new LinkedBlockingQueue<>();
  private final Map<String, List<GpuProcess>> processes = new ConcurrentHashMap<>();
  private final Map<String, GpuActivity> activity = new ConcurrentHashMap<>();

  public SimulatedNvml(List<NvmlGpu> gpus) {
    this.gpus = List.copyOf(gpus);
  }

  /** NVML's view of a simulated GPU backend's devices: same UUIDs, no MIG. */
  public static SimulatedNvml mirroring(List<GpuDevice> devices) {
    return new SimulatedNvml(
        devices.stream()
            .map(
                d ->
                    new NvmlGpu(
                        d.index(),
                        d.uuid(),
                        d.product(),
                        d.memoryBytes(),
                        d.index(),
                        false,
                        List.of()))
            .toList());
  }

  /** Marks a GPU as having a problem; {@code null} clears it. */
  public void setProblem(String gpuUuid, String reason) {
    if (reason == null) {
      problems.remove(gpuUuid);
    } else {
      problems.put(gpuUuid, reason);
    }
  }

  /** Sets the processes NVML lists on a GPU. */
  public void setProcesses(String gpuUuid, List<GpuProcess> list) {
    processes.put(gpuUuid, List.copyOf(list));
  }

  /** Sets the clocks and power a GPU reports. */
  public void setActivity(String gpuUuid, GpuActivity reading) {
    activity.put(gpuUuid, reading);
  }

  public void injectXid(String gpuUuid, long xid) {
    xids.add(new XidEvent(gpuUuid, xid));
  }

  @Override
  public String driverVersion() {
    return "simulated";
  }

  @Override
  public List<NvmlGpu> gpus() {
    return gpus;
  }

  @Override
  public Optional<String> healthProblem(String gpuUuid) {
    return Optional.ofNullable(problems.get(gpuUuid));
  }

  @Override
  public List<GpuProcess> computeProcesses(String gpuUuid) {
    return processes.getOrDefault(gpuUuid, List.of());
  }

  @Override
  public Optional<GpuActivity> activity(String gpuUuid) {
    if (gpus.stream().noneMatch(g -> g.uuid().equalsIgnoreCase(gpuUuid))) {
      return Optional.empty();
    }
    return Optional.of(activity.getOrDefault(gpuUuid, NOMINAL));
  }

  @Override
  public Optional<XidEvent> awaitXid(Duration timeout) throws InterruptedException {
    return Optional.ofNullable(xids.poll(timeout.toMillis(), TimeUnit.MILLISECONDS));
  }

  @Override
  public void close() {}
}
