package io.smslice.agent.server;

import io.smslice.agent.server.SessionObjects.Buffer;
import io.smslice.agent.server.SessionObjects.Event;
import io.smslice.agent.server.SessionObjects.Function;
import io.smslice.agent.server.SessionObjects.Graph;
import io.smslice.agent.server.SessionObjects.Module;
import io.smslice.agent.server.SessionObjects.Stream;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * One tenant connection's state: its shared mapping and its objects. Runs only on its claim's
 * executor thread, so it needs no locks.
 */
final class Session {
  private static final System.Logger LOG = System.getLogger(Session.class.getName());

  /** A MessageFormat pattern: an apostrophe is written twice, or it quotes what follows. */
  static final String PIN_FAILED =
      "claim {0}: cannot pin the session''s shared memory ({1}); copies will be slower";

  final long id;
  final SessionMemory memory;
  final Runnable disconnect;
  final HandleTable<Buffer> buffers = new HandleTable<>("buffer");
  final HandleTable<Module> modules = new HandleTable<>("module");
  final HandleTable<Function> functions = new HandleTable<>("function");
  final HandleTable<Stream> streams = new HandleTable<>("stream");
  final HandleTable<Event> events = new HandleTable<>("event");
  final HandleTable<Graph> graphs = new HandleTable<>("graph");

  /** Control requests waiting for their turn (see {@link SessionTurns}). */
  final ArrayDeque<PendingControl> controls = new ArrayDeque<>();

  private final ClaimRuntime runtime;
  private long consumed;
  private long modelledGpuNanos;

  Session(long id, ClaimRuntime runtime, SessionMemory memory, Runnable disconnect) {
    this.id = id;
    this.runtime = runtime;
    this.memory = memory;
    this.disconnect = disconnect;
  }

  /** A new session with its shared mapping, pinned for DMA where the driver allows. */
  static Session open(
      long id,
      ClaimRuntime runtime,
      ClaimRuntime.Limits limits,
      Runnable disconnect,
      GreenContext context,
      String claim)
      throws ProtocolException, GpuException {
    SessionMemory memory;
    try {
      memory = SessionMemory.create(limits.sessionDirectory(), limits.sharedDataBytes());
    } catch (IOException e) {
      throw new ProtocolException(Status.UNAVAILABLE, "cannot create shared memory: " + e);
    }
    try {
      context.registerHost(memory.segment);
    } catch (GpuException e) {
      if (e.contextLost()) {
        memory.close();
        throw e;
      }
      // Copies still work from pageable memory, only slower: serve, and say so.
      LOG.log(System.Logger.Level.WARNING, PIN_FAILED, claim, e.getMessage());
    }
    return new Session(id, runtime, memory, disconnect);
  }

  GreenContext context() {
    return runtime.context();
  }

  ClaimRuntime runtime() {
    return runtime;
  }

  boolean hasPending() {
    return submittedRecords() > consumed;
  }

  /** How many records the tenant has published so far. */
  long submittedRecords() {
    return memory.counters.getLong(SharedLayout.SUBMITTED);
  }

  /**
   * Whether the records published before {@code barrier} have run (or the tenant took back what it
   * claimed to have published, in which case nothing more is coming).
   */
  boolean reached(long barrier) {
    return consumed >= Math.min(barrier, submittedRecords());
  }

  /** Answers the waiting control requests without running them. */
  void refuseControls(Status status, String message) {
    PendingControl request;
    while ((request = controls.poll()) != null) {
      request.refuse(status, message);
    }
  }

  /**
   * Runs up to {@code budget} queued records, none at or past record {@code limit}; returns how
   * many ran. Stops early when one lost the GPU context (nothing after it can run until the runtime
   * has rebuilt the context) or when an error inside the agent failed the claim.
   */
  int pollRing(int budget, long limit) {
    long submitted = Math.min(submittedRecords(), Math.max(limit, consumed));
    int done = 0;
    while (consumed < submitted && done < budget) {
      long seq = consumed;
      if (submitted - seq > SharedLayout.RING_RECORDS) {
        // The tenant overwrote records it had not seen completed: a protocol violation.
        memory.fail(seq, Status.BAD_REQUEST, "ring overrun: more than 1024 records in flight");
        complete(submitted);
        return done + 1;
      }
      MemorySegment record =
          memory.segment.asSlice(SharedLayout.recordOffset(seq), SharedLayout.RECORD_BYTES);
      boolean waits = RingRecords.waits(record);
      GreenContext simulated = SimulatedBackend.isSimulated(context()) ? context() : null;
      long modelledBefore = simulated == null ? 0 : SimulatedBackend.gpuNanos(simulated);
      try {
        RingRecords.run(this, record);
        if (simulated != null) {
          modelledGpuNanos += SimulatedBackend.gpuNanos(simulated) - modelledBefore;
        }
      } catch (ProtocolException e) {
        memory.fail(seq, e.status(), e.getMessage());
      } catch (GpuException e) {
        if (e.contextLost()) {
          boolean culprit = runtime.contextLost(this, e);
          memory.fail(seq, culprit ? Status.FAULT : Status.DEVICE_LOST, e.getMessage());
          complete(seq + 1);
          return done + 1;
        }
        memory.fail(seq, Status.GPU_ERROR, e.getMessage());
      } catch (RuntimeException e) {
        memory.fail(seq, Status.BAD_REQUEST, "malformed record: " + e.getMessage());
      } catch (Error e) {
        memory.fail(seq, Status.UNAVAILABLE, "internal error of the agent: " + e);
        runtime.internalError(null, "ring record " + seq, e);
        if (!runtime.serving()) {
          return done + 1; // the session has ended with the claim
        }
      }
      consumed = seq + 1;
      done++;
      if (waits) {
        complete(consumed); // a tenant is waiting for exactly this
      }
    }
    if (done > 0) {
      complete(consumed);
    }
    return done;
  }

  /** Publishes completions once per record that a tenant waits on and once per batch. */
  private void complete(long through) {
    consumed = through;
    if (modelledGpuNanos != 0) {
      memory.counters.putLong(SharedLayout.MODELLED_GPU_NANOS, modelledGpuNanos);
    }
    memory.counters.putLong(SharedLayout.COMPLETED, through);
    memory.wakeTenant();
  }

  /**
   * Runs every record queued so far (not ones published meanwhile: a tenant cannot keep the
   * executor here), so that a control request sees the effects of earlier launches.
   */
  void drain() {
    if (hasPending() && runtime.serving()) {
      pollRing(Integer.MAX_VALUE, Long.MAX_VALUE);
    }
  }

  ByteBuffer control(Op op, ByteBuffer in) throws ProtocolException, GpuException {
    ByteBuffer out = ByteBuffer.allocate(64);
    switch (op) {
      case MAPPED -> memory.unlink();
      case LOAD_MODULE -> out.putLong(loadModule(in));
      case GET_FUNCTION -> {
        long module = in.getLong();
        String name = Frames.getString(in);
        Module entry = modules.get(module);
        checkRoom(functions, limits().functions(), "kernel handles");
        out.putLong(functions.add(new Function(module, name, entry.module.function(name))));
      }
      case UNLOAD_MODULE -> {
        long module = in.getLong();
        modules.get(module);
        GraphReferences.refuseIfUsed(this, "module", module);
        functions.entries().values().removeIf(f -> f.module == module);
        Module removed = modules.remove(module);
        removed.module.close();
        runtime.releaseMemory(removed.image.length);
      }
      case ALLOC -> out.putLong(allocate(in.getLong()));
      case FREE -> {
        long handle = in.getLong();
        Buffer buffer = buffers.get(handle);
        GraphReferences.refuseIfUsed(this, "buffer", handle);
        context().free(buffer.address());
        buffers.entries().values().remove(buffer);
        runtime.releaseMemory(buffer.bytes());
      }
      case BUFFER_ADDRESS -> out.putLong(buffers.get(in.getLong()).address());
      case CREATE_STREAM -> {
        checkRoom(streams, limits().streams(), "streams");
        out.putLong(streams.add(new Stream(context().createStream())));
      }
      case DESTROY_STREAM -> {
        Stream stream = streams.get(in.getLong());
        if (stream.capturing) {
          throw new ProtocolException(Status.BAD_REQUEST, "stream is capturing a graph");
        }
        stream.stream.synchronize();
        streams.entries().values().remove(stream);
        stream.stream.close();
      }
      case CREATE_EVENT -> {
        checkRoom(events, limits().events(), "events");
        out.putLong(events.add(new Event(context().createEvent())));
      }
      case DESTROY_EVENT -> events.remove(in.getLong()).event.close();
      case BEGIN_CAPTURE -> {
        Stream stream = streams.get(in.getLong());
        checkRoom(graphs, limits().graphs(), "graphs");
        stream.stream.beginCapture();
        stream.startCapture();
      }
      case END_CAPTURE -> out.putLong(GraphReferences.endCapture(this, streams.get(in.getLong())));
      case DESTROY_GRAPH -> graphs.remove(in.getLong()).graph.close();
      case INFO -> {
        out.putLong(runtime.memoryUsed());
        out.putLong(runtime.memoryQuota());
        out.putInt(context().smCount());
        out.putLong(runtime.metrics().launches());
      }
      case HELLO, DOORBELL ->
          throw new ProtocolException(Status.BAD_REQUEST, op + " is not valid here");
    }
    if (in.hasRemaining()) {
      throw new ProtocolException(Status.BAD_REQUEST, op + " request has trailing bytes");
    }
    return out.flip();
  }

  ObjectLimits limits() {
    return runtime.objectLimits();
  }

  /** Refuses to create one more object of a kind the session has its maximum of. */
  static void checkRoom(HandleTable<?> table, int max, String kind) throws ProtocolException {
    if (table.values().size() >= max) {
      throw new ProtocolException(
          Status.QUOTA_EXCEEDED,
          "the session has its maximum of " + max + " " + kind + "; destroy some first");
    }
  }

  /** A module's image counts against the claim's memory quota while it is loaded. */
  private long loadModule(ByteBuffer in) throws ProtocolException, GpuException {
    checkRoom(modules, limits().modules(), "modules");
    byte[] image = new byte[in.remaining()];
    in.get(image);
    runtime.reserveMemory(image.length, "loading a module of");
    try {
      return modules.add(new Module(image, context().loadModule(image)));
    } catch (GpuException | RuntimeException e) {
      runtime.releaseMemory(image.length);
      throw e;
    }
  }

  private long allocate(long bytes) throws ProtocolException, GpuException {
    if (bytes <= 0) {
      throw new ProtocolException(Status.BAD_REQUEST, "allocation size must be positive");
    }
    runtime.reserveMemory(bytes, "allocating");
    try {
      return buffers.add(new Buffer(context().allocate(bytes), bytes));
    } catch (GpuException e) {
      runtime.releaseMemory(bytes);
      throw e;
    }
  }

  /** Waits for all of this session's streams. */
  void synchronizeAll() throws GpuException {
    for (Stream stream : streams.values()) {
      if (!stream.capturing) {
        stream.stream.synchronize();
      }
    }
  }

  /** Frees everything through the GPU (normal end of a session). */
  void release() {
    freeOnGpu();
    forget();
  }

  /**
   * Tells the tenant why the session ends, frees its objects (through the GPU when it still works,
   * else just forgets them: a reset GPU has dropped them) and disconnects it.
   */
  void end(Status why, String message, boolean gpuUsable) {
    endKeepingConnection(why, message, gpuUsable);
    disconnect.run();
  }

  /**
   * Ends the session but leaves its connection open, for a session whose request is being answered:
   * the tenant reads the answer, and its next request learns that the session has ended.
   */
  void endKeepingConnection(Status why, String message, boolean gpuUsable) {
    refuseControls(why, message);
    memory.fail(consumed, why, message);
    memory.counters.putInt(SharedLayout.SESSION_STATE, why.code);
    memory.wakeTenant();
    if (gpuUsable) {
      freeOnGpu();
    }
    forget();
  }

  private void freeOnGpu() {
    for (Stream stream : streams.values()) {
      quietly(stream.stream::synchronize);
    }
    graphs.values().forEach(g -> g.graph.close());
    events.values().forEach(e -> e.event.close());
    streams.values().forEach(s -> s.stream.close());
    modules.values().forEach(m -> m.module.close());
    for (Buffer buffer : buffers.values()) {
      quietly(() -> context().free(buffer.address()));
      runtime.releaseMemory(buffer.bytes());
    }
    quietly(() -> context().unregisterHost(memory.segment));
  }

  private void forget() {
    for (Module module : modules.values()) {
      runtime.releaseMemory(module.image.length);
    }
    graphs.clear();
    events.clear();
    streams.clear();
    functions.clear();
    modules.clear();
    buffers.clear();
    memory.close();
  }

  private interface GpuCall {
    void run() throws GpuException;
  }

  private static void quietly(GpuCall call) {
    try {
      call.run();
    } catch (GpuException e) {
      // Best effort while tearing down; the context may already be unusable.
    }
  }
}
