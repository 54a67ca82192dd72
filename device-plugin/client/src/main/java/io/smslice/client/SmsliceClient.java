package io.smslice.client;

import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Event;
import io.smslice.client.Handles.Graph;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Module;
import io.smslice.client.Handles.Stream;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.RingOp;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * A session with the smslice agent serving a claim: load kernels, allocate memory within the
 * claim's quota, copy, launch, synchronize and replay graphs, all inside the claim's green context.
 * Launches and copies go through shared memory (no round trip per launch); errors of queued work
 * surface at the next synchronization, as in CUDA. Use one client per thread.
 */
public final class SmsliceClient implements AutoCloseable {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  private final Path socket;
  private final String claim;
  private final String token;
  private ControlChannel control;
  private Arena arena;
  private SharedRing ring;
  private SessionInfo info;

  /** What the agent said about the session. */
  public record SessionInfo(
      long sessionId, int sms, long memoryQuota, boolean simulated, String backend) {}

  private SmsliceClient(Path socket, String claim, String token) {
    this.socket = socket;
    this.claim = claim;
    this.token = token;
    open();
  }

  /** Connects with SMSLICE_SOCKET, SMSLICE_CLAIM and SMSLICE_TOKEN, as the device plugin sets. */
  public static SmsliceClient fromEnvironment() {
    return connect(Path.of(env("SMSLICE_SOCKET")), env("SMSLICE_CLAIM"), env("SMSLICE_TOKEN"));
  }

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) {
      throw new IllegalStateException(
          name
              + " is not set: run inside a pod annotated with smslice.io/claim=<claim> on a node"
              + " where the claim is bound");
    }
    return value;
  }

  public static SmsliceClient connect(Path socket, String claim, String token) {
    return new SmsliceClient(socket, claim, token);
  }

  private void open() {
    control = ControlChannel.connect(socket);
    try {
      ByteBuffer hello = ByteBuffer.allocate(4096);
      Frames.putString(hello, claim);
      Frames.putString(hello, token);
      ByteBuffer reply = control.call(Op.HELLO, hello.flip());
      long sessionId = reply.getLong();
      int sms = reply.getInt();
      long quota = reply.getLong();
      boolean simulated = reply.get() != 0;
      String backend = Frames.getString(reply);
      String file = Frames.getString(reply);
      long size = reply.getLong();
      info = new SessionInfo(sessionId, sms, quota, simulated, backend);
      arena = Arena.ofShared();
      try (FileChannel channel =
          FileChannel.open(
              socket.resolveSibling(file), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        MemorySegment memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        if (memory.get(ValueLayout.JAVA_INT, SharedLayout.MAGIC_OFFSET) != SharedLayout.MAGIC
            || memory.get(ValueLayout.JAVA_INT, SharedLayout.VERSION_OFFSET)
                != SharedLayout.VERSION) {
          throw new IllegalStateException("shared file " + file + " has an unknown layout");
        }
        ring =
            new SharedRing(
                memory,
                () -> control.send(Op.DOORBELL),
                () -> control != null && control.peerOpen(),
                SharedRing.configuredWaitTimeout());
      }
      control.call(Op.MAPPED, ByteBuffer.allocate(0));
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot map the session's shared memory", e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Opens a new session after the old one was lost (a {@link DeviceLostException}), retrying while
   * the agent recovers the GPU. Every handle of the old session is invalid afterwards.
   */
  public void reconnect(Duration timeout) {
    close();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        open();
        return;
      } catch (SmsliceException | UncheckedIOException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(5);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private ControlChannel control() {
    if (control == null) {
      throw new DeviceLostException(Status.DEVICE_LOST, "not connected: call reconnect");
    }
    return control;
  }

  private SharedRing ring() {
    if (control == null) {
      throw new DeviceLostException(Status.DEVICE_LOST, "not connected: call reconnect");
    }
    return ring;
  }

  public SessionInfo info() {
    return info;
  }

  /**
   * On a simulated GPU, the modelled GPU time of this session's work completed so far (kernels'
   * waits for their SMs plus their durations, free of this host's CPU delays); empty on a real GPU,
   * whose time only the wall clock measures. Read after a synchronization, its difference across a
   * frame is the frame's GPU-side latency.
   */
  public OptionalLong modelledGpuNanos() {
    return info.simulated() ? OptionalLong.of(ring().modelledGpuNanos()) : OptionalLong.empty();
  }

  // ---- control requests ----

  public Module loadModule(byte[] image) {
    ring().drain();
    return new Module(control().call(Op.LOAD_MODULE, ByteBuffer.wrap(image)).getLong());
  }

  public Kernel kernel(Module module, String name) {
    ByteBuffer request = ByteBuffer.allocate(10 + name.length() * 3);
    request.putLong(module.handle());
    Frames.putString(request, name);
    return new Kernel(control().call(Op.GET_FUNCTION, request.flip()).getLong(), name);
  }

  public void unload(Module module) {
    control().call(Op.UNLOAD_MODULE, handle(module.handle()));
  }

  /** Device memory, counted against the claim's quota. */
  public Buffer allocate(long bytes) {
    return new Buffer(control().call(Op.ALLOC, handle(bytes)).getLong(), bytes);
  }

  /**
   * The buffer's device address, for kernels that take pointers inside their own structures.
   * Addresses of other claims' memory are useless under worker isolation (a separate GPU address
   * space per claim); in-agent run mode does not protect them (see docs/agent.md).
   */
  public long deviceAddress(Buffer buffer) {
    return control().call(Op.BUFFER_ADDRESS, handle(buffer.handle())).getLong();
  }

  public void free(Buffer buffer) {
    control().call(Op.FREE, handle(buffer.handle()));
  }

  public Stream createStream() {
    return new Stream(control().call(Op.CREATE_STREAM, ByteBuffer.allocate(0)).getLong());
  }

  public void destroy(Stream stream) {
    control().call(Op.DESTROY_STREAM, handle(stream.handle()));
  }

  public Event createEvent() {
    return new Event(control().call(Op.CREATE_EVENT, ByteBuffer.allocate(0)).getLong());
  }

  public void destroy(Event event) {
    control().call(Op.DESTROY_EVENT, handle(event.handle()));
  }

  /** Work queued on the stream from now on is recorded into a graph instead of running. */
  public void beginCapture(Stream stream) {
    control().call(Op.BEGIN_CAPTURE, handle(stream.handle()));
  }

  public Graph endCapture(Stream stream) {
    return new Graph(control().call(Op.END_CAPTURE, handle(stream.handle())).getLong());
  }

  public void destroy(Graph graph) {
    control().call(Op.DESTROY_GRAPH, handle(graph.handle()));
  }

  /** Memory in use by the claim (all sessions) and its quota, SMs, launches so far. */
  public long[] usage() {
    ByteBuffer reply = control().call(Op.INFO, ByteBuffer.allocate(0));
    return new long[] {reply.getLong(), reply.getLong(), reply.getInt(), reply.getLong()};
  }

  private static ByteBuffer handle(long value) {
    return ByteBuffer.allocate(8).putLong(0, value);
  }

  // ---- queued work (shared memory) ----

  public void launch(Kernel kernel, Stream stream, int blocks, int threads, Arg... args) {
    launch(kernel, stream, Dim.of(blocks), Dim.of(threads), 0, args);
  }

  public void launch(
      Kernel kernel, Stream stream, Dim grid, Dim block, int sharedBytes, Arg... args) {
    if (args.length > SharedLayout.MAX_KERNEL_ARGS) {
      throw new IllegalArgumentException(
          "at most " + SharedLayout.MAX_KERNEL_ARGS + " kernel arguments");
    }
    MemorySegment r = ring().next();
    r.set(INT, 0, RingOp.LAUNCH);
    r.set(INT, 4, args.length);
    r.set(LONG, 8, kernel.handle());
    r.set(LONG, 16, stream.handle());
    r.set(INT, 24, grid.x());
    r.set(INT, 28, grid.y());
    r.set(INT, 32, grid.z());
    r.set(INT, 36, block.x());
    r.set(INT, 40, block.y());
    r.set(INT, 44, block.z());
    r.set(INT, 48, sharedBytes);
    for (int i = 0; i < args.length; i++) {
      long at = SharedLayout.LAUNCH_ARGS_OFFSET + (long) i * SharedLayout.ARG_BYTES;
      switch (args[i]) {
        case Arg.BufferArg b -> put(r, at, RingOp.ARG_BUFFER, b.buffer().handle(), b.offset());
        case Arg.I32 v -> put(r, at, RingOp.ARG_I32, v.value(), 0);
        case Arg.I64 v -> put(r, at, RingOp.ARG_I64, v.value(), 0);
        case Arg.F32 v -> put(r, at, RingOp.ARG_F32, Float.floatToRawIntBits(v.value()), 0);
        case Arg.F64 v -> put(r, at, RingOp.ARG_F64, Double.doubleToRawLongBits(v.value()), 0);
      }
    }
    ring().publish();
  }

  private static void put(MemorySegment record, long at, byte kind, long a, long b) {
    record.set(ValueLayout.JAVA_BYTE, at, kind);
    record.set(LONG, at + 1, a);
    record.set(LONG, at + 9, b);
  }

  /**
   * The shared data area: fill it and queue {@link #copyFromStaging} (no extra host copy), or queue
   * {@link #copyToStaging} and read it after a synchronization. The convenience copies {@link
   * #write} and {@link #read} use it too.
   */
  public MemorySegment staging() {
    return ring().data();
  }

  public void copyFromStaging(
      Stream stream, Buffer target, long targetOffset, long stagingOffset, long bytes) {
    queue(
        RingOp.COPY_TO_DEVICE,
        stream.handle(),
        target.handle(),
        targetOffset,
        stagingOffset,
        bytes);
  }

  public void copyToStaging(
      Stream stream, Buffer source, long sourceOffset, long stagingOffset, long bytes) {
    queue(
        RingOp.COPY_TO_HOST, stream.handle(), source.handle(), sourceOffset, stagingOffset, bytes);
  }

  public void copy(
      Stream stream,
      Buffer target,
      long targetOffset,
      Buffer source,
      long sourceOffset,
      long bytes) {
    queue(
        RingOp.COPY_DEVICE_TO_DEVICE,
        stream.handle(),
        target.handle(),
        targetOffset,
        source.handle(),
        sourceOffset,
        bytes);
  }

  public void fill(Stream stream, Buffer target, long offset, long bytes, byte value) {
    queue(RingOp.FILL, stream.handle(), target.handle(), offset, bytes, value);
  }

  /** Copies host bytes into a buffer through the staging area and waits until done. */
  public void write(Stream stream, Buffer target, long targetOffset, MemorySegment source) {
    long chunk = staging().byteSize();
    for (long done = 0; done < source.byteSize(); done += chunk) {
      long bytes = Math.min(chunk, source.byteSize() - done);
      staging().copyFrom(source.asSlice(done, bytes));
      copyFromStaging(stream, target, targetOffset + done, 0, bytes);
      synchronize(stream);
    }
  }

  /** Copies a buffer's bytes to host memory through the staging area and waits until done. */
  public void read(Stream stream, Buffer source, long sourceOffset, MemorySegment target) {
    long chunk = staging().byteSize();
    for (long done = 0; done < target.byteSize(); done += chunk) {
      long bytes = Math.min(chunk, target.byteSize() - done);
      copyToStaging(stream, source, sourceOffset + done, 0, bytes);
      synchronize(stream);
      target.asSlice(done, bytes).copyFrom(staging().asSlice(0, bytes));
    }
  }

  public void record(Event event, Stream stream) {
    queue(RingOp.RECORD_EVENT, event.handle(), stream.handle());
  }

  public void waitFor(Stream stream, Event event) {
    queue(RingOp.WAIT_EVENT, stream.handle(), event.handle());
  }

  public void launchGraph(Graph graph, Stream stream) {
    queue(RingOp.LAUNCH_GRAPH, graph.handle(), stream.handle());
  }

  /** Waits for the stream's work; throws the first failure of queued work since the last one. */
  public void synchronize(Stream stream) {
    ring().await(queue(RingOp.SYNC_STREAM, stream.handle()));
  }

  public void synchronize(Event event) {
    ring().await(queue(RingOp.SYNC_EVENT, event.handle()));
  }

  private long queue(int op, long... fields) {
    MemorySegment record = ring().next();
    record.set(INT, 0, op);
    for (int i = 0; i < fields.length; i++) {
      record.set(LONG, 8 + 8L * i, fields[i]);
    }
    return ring().publish();
  }

  /** Ends the session; the agent frees everything it held. */
  @Override
  public void close() {
    if (control != null) {
      control.close();
      control = null;
    }
    if (arena != null) {
      arena.close();
      arena = null;
    }
  }
}
