package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A simulated green context: work runs on the CPU, synchronously, with real byte copies. */
final class SimulatedGreenContext implements GreenContext {
  private static final Pattern PTX_ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)");

  private final SimulatedGpu gpu;
  private final int sms;
  private final int[] smIds;
  private final int generation;

  SimulatedGreenContext(SimulatedGpu gpu, List<Integer> groupIds, int sms) {
    this.gpu = gpu;
    this.sms = sms;
    this.smIds = smIdsOf(gpu, groupIds);
    this.generation = gpu.generation();
  }

  /** Group i of the split owns the SM ids that follow those of groups 0..i-1. */
  private static int[] smIdsOf(SimulatedGpu gpu, List<Integer> groupIds) {
    List<io.smslice.gpu.SplitGroup> split = gpu.device.split();
    int[] first = new int[split.size()];
    for (int i = 1; i < split.size(); i++) {
      first[i] = first[i - 1] + split.get(i - 1).sms();
    }
    return groupIds.stream()
        .flatMapToInt(
            g -> java.util.stream.IntStream.range(first[g], first[g] + split.get(g).sms()))
        .toArray();
  }

  int[] smIds() {
    return smIds;
  }

  /** Fails when the simulated GPU's context was poisoned by a fault or reset. */
  void check() throws GpuException {
    gpu.check(generation);
  }

  /** Runs device work; a fault in it poisons the whole simulated GPU, as on real hardware. */
  void execute(SimulatedWork work) throws GpuException {
    check();
    try {
      work.run();
    } catch (GpuException e) {
      if (e.contextLost()) {
        gpu.poison(e);
      }
      throw e;
    }
  }

  SimulatedMemory memory() {
    return gpu.memory;
  }

  @Override
  public String gpuUuid() {
    return gpu.device.uuid();
  }

  @Override
  public int smCount() {
    return sms;
  }

  @Override
  public void makeCurrent() throws GpuException {
    check();
  }

  @Override
  public long allocate(long bytes) throws GpuException {
    check();
    return gpu.memory.allocate(bytes);
  }

  @Override
  public void free(long deviceAddress) throws GpuException {
    check();
    gpu.memory.free(deviceAddress);
  }

  @Override
  public void registerHost(MemorySegment hostMemory) throws GpuException {
    check();
  }

  @Override
  public void unregisterHost(MemorySegment hostMemory) {}

  @Override
  public GpuModule loadModule(byte[] image) throws GpuException {
    check();
    String text = new String(image, StandardCharsets.UTF_8);
    if (!text.contains(".entry") || text.indexOf('\0') >= 0) {
      throw new GpuException(
          GpuError.INVALID_IMAGE,
          "the simulated backend loads only PTX text whose kernels it implements: "
              + SimulatedKernels.names());
    }
    Set<String> entries = new HashSet<>();
    Matcher matcher = PTX_ENTRY.matcher(text);
    while (matcher.find()) {
      entries.add(matcher.group(1));
    }
    return new SimulatedModule(entries);
  }

  @Override
  public GpuStream createStream() throws GpuException {
    check();
    return new SimulatedStream(this);
  }

  @Override
  public GpuEvent createEvent() throws GpuException {
    check();
    return new SimulatedEvent();
  }

  @Override
  public void close() {}

  /** Device work that may fault. */
  @FunctionalInterface
  interface SimulatedWork {
    void run() throws GpuException;
  }

  record SimulatedFunction(String name) implements GpuFunction {}

  private record SimulatedModule(Set<String> entries) implements GpuModule {
    @Override
    public GpuFunction function(String name) throws GpuException {
      if (!entries.contains(name)) {
        throw new GpuException(GpuError.INVALID_IMAGE, "module has no kernel " + name);
      }
      if (!SimulatedKernels.names().contains(name)) {
        throw new GpuException(
            GpuError.NOT_SUPPORTED,
            "kernel " + name + " has no CPU implementation in the simulated backend");
      }
      return new SimulatedFunction(name);
    }

    @Override
    public void close() {}
  }

  private static final class SimulatedEvent implements GpuEvent {
    @Override
    public void synchronize() {}

    @Override
    public void close() {}
  }
}
