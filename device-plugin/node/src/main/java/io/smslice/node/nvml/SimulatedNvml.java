package io.smslice.node.nvml;

import io.smslice.gpu.GpuDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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
 *
 * <p>With a fault directory, a file there named after a GPU's UUID is that GPU's health problem,
 * its text the reason, until the file is removed: how a simulated node in a cluster is made
 * unhealthy from inside its pod (docs/dra-node.md), where no test code can reach the process.
 */
public final class SimulatedNvml implements Nvml {
  /** H200's maximum SM clock (1980 MHz), a steady 100 W, no clock-event reason, memory idle. */
  public static final GpuActivity NOMINAL = new GpuActivity(1980, 100_000, 0, 0);

  private final List<NvmlGpu> gpus;
  private final Map<String, String> problems = new ConcurrentHashMap<>();
  private final BlockingQueue<XidEvent> xids = new LinkedBlockingQueue<>();
  private final Map<String, List<GpuProcess>> processes = new ConcurrentHashMap<>();
  private final Map<String, GpuActivity> activity = new ConcurrentHashMap<>();
  private final Path faultFiles;

  public SimulatedNvml(List<NvmlGpu> gpus) {
    this(gpus, null);
  }

  private SimulatedNvml(List<NvmlGpu> gpus, Path faultFiles) {
    this.gpus = List.copyOf(gpus);
    this.faultFiles = faultFiles;
  }

  /** NVML's view of a simulated GPU backend's devices: same UUIDs, no MIG. */
  public static SimulatedNvml mirroring(List<GpuDevice> devices) {
    return mirroring(devices, null);
  }

  /** As {@link #mirroring(List)}, with health problems also read from files in {@code faults}. */
  public static SimulatedNvml mirroring(List<GpuDevice> devices, Path faults) {
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
            .toList(),
        faults);
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
    String injected = problems.get(gpuUuid);
    if (injected != null || faultFiles == null) {
      return Optional.ofNullable(injected);
    }
    Path file = faultFiles.resolve(gpuUuid);
    try {
      String reason = Files.readString(file).strip();
      return Optional.of(reason.isEmpty() ? "fault file " + file : reason);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("fault file " + file + " is unreadable: " + e.getMessage());
    }
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
