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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A simulated green context: its streams queue work that runs on the CPU with real byte copies, on
 * this context's SMs. Streams, events, modules and graphs belong to the context that made them and
 * fail once it is destroyed, as they do on the driver; device memory belongs to the GPU.
 */
final class SimulatedGreenContext implements GreenContext {
  private static final Pattern PTX_ENTRY = Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)");

  private final SimulatedGpu gpu;
  private final int sms;
  private final int[] smIds;
  private final int generation;
  private final Set<SimulatedStream> streams = new LinkedHashSet<>();
  private volatile boolean closed;
  private final AtomicLong gpuNanos = new AtomicLong();

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

  /** Fails as the driver does when this green context was destroyed. */
  void checkOpen(String what) throws GpuException {
    if (closed) {
      throw new GpuException(
          GpuError.INVALID_VALUE,
          what + " belongs to a green context that was destroyed (context is destroyed)");
    }
  }

  synchronized void forget(SimulatedStream stream) {
    streams.remove(stream);
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

  void addGpuNanos(long nanos) {
    gpuNanos.addAndGet(nanos);
  }

  /** Modelled time this context's kernels have waited for their SMs and run, in total. */
  long gpuNanos() {
    return gpuNanos.get();
  }

  SimulatedClock clock() {
    return gpu.clock;
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
    checkOpen("the current context");
    check();
  }

  @Override
  public long allocate(long bytes) throws GpuException {
    checkOpen("allocation");
    check();
    return gpu.memory.allocate(bytes);
  }

  /** Like cuMemFree, waits for the work queued on this context's streams first. */
  @Override
  public void free(long deviceAddress) throws GpuException {
    checkOpen("free");
    check();
    for (SimulatedStream stream : streamsNow()) {
      stream.synchronize();
    }
    gpu.memory.free(deviceAddress);
  }

  private synchronized List<SimulatedStream> streamsNow() {
    return new ArrayList<>(streams);
  }

  @Override
  public void registerHost(MemorySegment hostMemory) throws GpuException {
    checkOpen("host registration");
    check();
  }

  @Override
  public void unregisterHost(MemorySegment hostMemory) {}

  @Override
  public GpuModule loadModule(byte[] image) throws GpuException {
    checkOpen("module load");
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
    return new SimulatedModule(this, entries);
  }

  @Override
  public GpuStream createStream() throws GpuException {
    checkOpen("stream creation");
    check();
    SimulatedStream stream = new SimulatedStream(this);
    synchronized (this) {
      streams.add(stream);
    }
    return stream;
  }

  @Override
  public GpuEvent createEvent() throws GpuException {
    return event(false);
  }

  @Override
  public GpuEvent createTimedEvent() throws GpuException {
    return event(true);
  }

  private GpuEvent event(boolean timed) throws GpuException {
    checkOpen("event creation");
    check();
    return new SimulatedEvent(this, timed);
  }

  /** Lets the streams' queued work finish, then every object of this context is invalid. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    for (SimulatedStream stream : streamsNow()) {
      stream.finishQuietly();
    }
    closed = true;
  }

  /** Device work that may fault. */
  @FunctionalInterface
  interface SimulatedWork {
    void run() throws GpuException;
  }

  record SimulatedFunction(String name, SimulatedModule module) implements GpuFunction {
    /** Functions, like their modules, work only on streams of the context that loaded them. */
    void checkUsableIn(SimulatedGreenContext streamContext) throws GpuException {
      if (module.closed) {
        throw new GpuException(
            GpuError.INVALID_VALUE, "module of kernel " + name + " was unloaded (invalid handle)");
      }
      if (module.context != streamContext) {
        throw new GpuException(
            GpuError.INVALID_VALUE,
            "kernel " + name + " was loaded in another context (invalid handle)");
      }
    }
  }

  static final class SimulatedModule implements GpuModule {
    private final SimulatedGreenContext context;
    private final Set<String> entries;
    private volatile boolean closed;

    SimulatedModule(SimulatedGreenContext context, Set<String> entries) {
      this.context = context;
      this.entries = entries;
    }

    @Override
    public GpuFunction function(String name) throws GpuException {
      context.checkOpen("module");
      if (!entries.contains(name)) {
        throw new GpuException(GpuError.INVALID_IMAGE, "module has no kernel " + name);
      }
      if (!SimulatedKernels.names().contains(name)) {
        throw new GpuException(
            GpuError.NOT_SUPPORTED,
            "kernel " + name + " has no CPU implementation in the simulated backend");
      }
      return new SimulatedFunction(name, this);
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
