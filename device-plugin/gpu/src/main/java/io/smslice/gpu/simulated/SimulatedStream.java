package io.smslice.gpu.simulated;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuGraph;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.gpu.simulated.SimulatedGreenContext.SimulatedFunction;
import io.smslice.gpu.simulated.SimulatedGreenContext.SimulatedWork;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated stream queues its work and runs it as late as CUDA allows: when someone waits for it
 * (stream or event synchronization, another stream waiting on one of its events, a device-memory
 * free) or when its queue is full (a launch then waits, as it does when the GPU's queue is full).
 * Work that nothing orders before a read has not run yet, so a missing event wait shows up as stale
 * data. A kernel's run also takes its modelled GPU time ({@link SimulatedClock}), slept, not spun.
 * Events are stamped on a modelled timeline, where an operation starts when the one before it ends
 * (or, queued on an idle stream, when queued) and lasts its kernels' modelled time, so that two
 * events time the work between them as a GPU would, however late the lazy run. While capturing, it
 * records work into a graph.
 */
final class SimulatedStream implements GpuStream {
  /** Queued operations before a new one first runs the oldest. */
  static final int QUEUE_DEPTH = 1024;

  private final SimulatedGreenContext context;
  private final ArrayDeque<Queued> queued = new ArrayDeque<>();

  /** Events recorded after work that has not run yet, oldest first, stamped when it has. */
  private final ArrayDeque<Mark> marks = new ArrayDeque<>();

  private long submitted;
  private long completed;

  /** When the latest operation run ended on the modelled timeline (System.nanoTime's clock). */
  private long modelledEnd = Long.MIN_VALUE;

  private List<SimulatedWork> capture;
  private boolean closed;

  SimulatedStream(SimulatedGreenContext context) {
    this.context = context;
  }

  SimulatedGreenContext context() {
    return context;
  }

  /** Fails like the driver when the stream or its green context is gone. */
  private void checkUsable() throws GpuException {
    if (closed) {
      throw new GpuException(GpuError.INVALID_VALUE, "stream was destroyed (invalid handle)");
    }
    context.checkOpen("stream");
    context.check();
  }

  private synchronized void submit(SimulatedWork work) throws GpuException {
    checkUsable();
    if (capture != null) {
      capture.add(work);
      return;
    }
    if (queued.size() >= QUEUE_DEPTH) {
      runThrough(completed + 1);
    }
    // Work queued behind work not run yet starts when that ends; on an idle stream, when queued.
    queued.add(new Queued(work, completed == submitted ? System.nanoTime() : Long.MIN_VALUE));
    submitted++;
  }

  /** {@code at}: the earliest it may start on the modelled timeline. */
  private record Queued(SimulatedWork work, long at) {}

  private record Mark(SimulatedEvent event, long seq) {}

  /** Sequence number of the latest queued operation (what an event recorded now waits for). */
  synchronized long position() {
    return submitted;
  }

  /**
   * Runs queued work up to and including operation {@code seq}. A fault poisons the simulated GPU
   * and drops the rest, as a lost context does.
   */
  synchronized void runThrough(long seq) throws GpuException {
    while (completed < seq && !queued.isEmpty()) {
      Queued next = queued.poll();
      completed++;
      // The context's modelled time grows only by this operation's kernels: a context's streams
      // are driven from the one thread it is current on (GreenContext#makeCurrent).
      long gpuBefore = context.gpuNanos();
      try {
        context.execute(next.work());
      } catch (GpuException e) {
        queued.clear();
        marks.clear();
        completed = submitted;
        throw e;
      }
      modelledEnd = Math.max(next.at(), modelledEnd) + context.gpuNanos() - gpuBefore;
      while (!marks.isEmpty() && marks.peek().seq() <= completed) {
        Mark passed = marks.poll();
        passed.event().stamp(this, passed.seq(), modelledEnd);
      }
    }
  }

  /** Whether operation {@code seq} has run. */
  synchronized boolean ranThrough(long seq) {
    return completed >= seq;
  }

  @Override
  public void launch(GpuFunction function, LaunchGeometry geometry, List<KernelArg> args)
      throws GpuException {
    if (!(function instanceof SimulatedFunction simulated)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a simulated function: " + function);
    }
    simulated.checkUsableIn(context);
    List<KernelArg> copy = List.copyOf(args);
    // Bad arguments fail the launch call itself; memory faults happen when the kernel runs.
    SimulatedKernels.checkArgs(simulated.name(), copy);
    int[] sms = context.smIds();
    SimulatedClock.Work work = SimulatedKernels.work(simulated.name(), geometry, copy);
    submit(
        () -> {
          SimulatedKernels.run(simulated.name(), geometry, copy, context.memory(), sms);
          context.addGpuNanos(context.clock().run(context, sms, work));
        });
  }

  @Override
  public void copyToDevice(long deviceAddress, MemorySegment source) throws GpuException {
    submit(() -> context.memory().slice(deviceAddress, source.byteSize()).copyFrom(source));
  }

  @Override
  public void copyToHost(MemorySegment target, long deviceAddress) throws GpuException {
    submit(() -> target.copyFrom(context.memory().slice(deviceAddress, target.byteSize())));
  }

  @Override
  public void copyDeviceToDevice(long target, long source, long bytes) throws GpuException {
    submit(
        () ->
            context.memory().slice(target, bytes).copyFrom(context.memory().slice(source, bytes)));
  }

  @Override
  public void fill(long deviceAddress, byte value, long bytes) throws GpuException {
    submit(() -> context.memory().slice(deviceAddress, bytes).fill(value));
  }

  @Override
  public synchronized void record(GpuEvent event) throws GpuException {
    checkUsable();
    SimulatedEvent simulated = SimulatedEvent.of(event);
    if (simulated.context() != context) {
      throw new GpuException(
          GpuError.INVALID_VALUE, "event and stream belong to different contexts (invalid handle)");
    }
    refuseWhileCapturing("recording an event");
    simulated.recorded(this, submitted);
    if (completed == submitted) {
      simulated.stamp(this, submitted, Math.max(System.nanoTime(), modelledEnd));
    } else {
      marks.add(new Mark(simulated, submitted));
    }
  }

  @Override
  public synchronized void waitFor(GpuEvent event) throws GpuException {
    checkUsable();
    SimulatedEvent simulated = SimulatedEvent.of(event);
    refuseWhileCapturing("waiting for an event");
    // The wait is for the event's latest record at the time of this call, as in CUDA.
    SimulatedStream source = simulated.stream();
    long seq = simulated.seq();
    if (source != null && source != this) {
      submit(() -> source.runThrough(seq));
    }
  }

  private void refuseWhileCapturing(String what) throws GpuException {
    if (capture != null) {
      throw new GpuException(
          GpuError.NOT_SUPPORTED,
          "the simulated backend does not capture events into graphs (" + what + ")");
    }
  }

  @Override
  public synchronized void synchronize() throws GpuException {
    checkUsable();
    runThrough(submitted);
  }

  @Override
  public synchronized void beginCapture() throws GpuException {
    if (capture != null) {
      throw new GpuException(GpuError.INVALID_VALUE, "stream is already capturing");
    }
    checkUsable();
    capture = new ArrayList<>();
  }

  @Override
  public synchronized GpuGraph endCapture() throws GpuException {
    if (capture == null) {
      throw new GpuException(GpuError.INVALID_VALUE, "stream is not capturing");
    }
    List<SimulatedWork> recorded = List.copyOf(capture);
    capture = null;
    return new SimulatedGraph(context, recorded);
  }

  @Override
  public void launchGraph(GpuGraph graph) throws GpuException {
    if (!(graph instanceof SimulatedGraph simulated)) {
      throw new GpuException(GpuError.INVALID_VALUE, "not a simulated graph: " + graph);
    }
    if (simulated.closed) {
      throw new GpuException(GpuError.INVALID_VALUE, "graph was destroyed (invalid handle)");
    }
    if (simulated.context != context) {
      throw new GpuException(
          GpuError.INVALID_VALUE, "graph was instantiated in another context (invalid context)");
    }
    submit(
        () -> {
          for (SimulatedWork work : simulated.work) {
            work.run();
          }
        });
  }

  /** Lets queued work finish (as cuStreamDestroy does), then the handle is invalid. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    finishQuietly();
    closed = true;
    context.forget(this);
  }

  /**
   * Runs what is queued, ignoring failures: the stream is being destroyed, and a fault has already
   * poisoned the GPU for everyone who uses it next.
   */
  synchronized void finishQuietly() {
    try {
      runThrough(submitted);
    } catch (GpuException | IllegalStateException e) {
      // IllegalStateException: the host mapping of a queued copy was already unmapped.
      queued.clear();
      marks.clear();
      completed = submitted;
    }
  }

  private static final class SimulatedGraph implements GpuGraph {
    private final SimulatedGreenContext context;
    private final List<SimulatedWork> work;
    private volatile boolean closed;

    SimulatedGraph(SimulatedGreenContext context, List<SimulatedWork> work) {
      this.context = context;
      this.work = work;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
