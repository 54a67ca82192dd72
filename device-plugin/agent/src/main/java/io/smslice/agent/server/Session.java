package io.smslice.agent.server;

import io.smslice.agent.server.SessionObjects.Buffer;
import io.smslice.agent.server.SessionObjects.Event;
import io.smslice.agent.server.SessionObjects.Function;
import io.smslice.agent.server.SessionObjects.Graph;
import io.smslice.agent.server.SessionObjects.Module;
import io.smslice.agent.server.SessionObjects.Stream;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * One tenant connection's state: its shared mapping and its objects. Runs only on its claim's
 * executor thread, so it needs no locks.
 */
final class Session {
  final long id;
  final SessionMemory memory;
  final Runnable disconnect;
  final HandleTable<Buffer> buffers = new HandleTable<>("buffer");
  final HandleTable<Module> modules = new HandleTable<>("module");
  final HandleTable<Function> functions = new HandleTable<>("function");
  final HandleTable<Stream> streams = new HandleTable<>("stream");
  final HandleTable<Event> events = new HandleTable<>("event");
  final HandleTable<Graph> graphs = new HandleTable<>("graph");
  private final ClaimRuntime runtime;
  private long consumed;

  Session(long id, ClaimRuntime runtime, SessionMemory memory, Runnable disconnect) {
    this.id = id;
    this.runtime = runtime;
    this.memory = memory;
    this.disconnect = disconnect;
  }

  GreenContext context() {
    return runtime.context();
  }

  ClaimRuntime runtime() {
    return runtime;
  }

  boolean hasPending() {
    return memory.counters.getLong(SharedLayout.SUBMITTED) > consumed;
  }

  /**
   * Runs up to {@code budget} queued records; returns how many ran. Stops early when one lost the
   * GPU context: nothing after it can run until the runtime has rebuilt the context.
   */
  int pollRing(int budget) {
    long submitted = memory.counters.getLong(SharedLayout.SUBMITTED);
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
      try {
        RingRecords.run(this, record);
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
    memory.counters.putLong(SharedLayout.COMPLETED, through);
  }

  /**
   * Runs every record queued so far (not ones published meanwhile: a tenant cannot keep the
   * executor here), so that a control request sees the effects of earlier launches.
   */
  void drain() {
    if (hasPending() && runtime.serving()) {
      pollRing(Integer.MAX_VALUE);
    }
  }

  ByteBuffer control(Op op, ByteBuffer in) throws ProtocolException, GpuException {
    ByteBuffer out = ByteBuffer.allocate(64);
    switch (op) {
      case MAPPED -> memory.unlink();
      case LOAD_MODULE -> {
        byte[] image = new byte[in.remaining()];
        in.get(image);
        out.putLong(modules.add(new Module(image, context().loadModule(image))));
      }
      case GET_FUNCTION -> {
        long module = in.getLong();
        String name = Frames.getString(in);
        Module entry = modules.get(module);
        out.putLong(functions.add(new Function(module, name, entry.module.function(name))));
      }
      case UNLOAD_MODULE -> {
        long module = in.getLong();
        modules.get(module);
        functions.entries().values().removeIf(f -> f.module == module);
        modules.remove(module).module.close();
      }
      case ALLOC -> out.putLong(allocate(in.getLong()));
      case FREE -> {
        Buffer buffer = buffers.get(in.getLong());
        context().free(buffer.address());
        buffers.entries().values().remove(buffer);
        runtime.releaseMemory(buffer.bytes());
      }
      case BUFFER_ADDRESS -> out.putLong(buffers.get(in.getLong()).address());
      case CREATE_STREAM -> out.putLong(streams.add(new Stream(context().createStream())));
      case DESTROY_STREAM -> {
        Stream stream = streams.get(in.getLong());
        if (stream.capturing) {
          throw new ProtocolException(Status.BAD_REQUEST, "stream is capturing a graph");
        }
        stream.stream.synchronize();
        streams.entries().values().remove(stream);
        stream.stream.close();
      }
      case CREATE_EVENT -> out.putLong(events.add(new Event(context().createEvent())));
      case DESTROY_EVENT -> events.remove(in.getLong()).event.close();
      case BEGIN_CAPTURE -> {
        Stream stream = streams.get(in.getLong());
        stream.stream.beginCapture();
        stream.capturing = true;
      }
      case END_CAPTURE -> {
        Stream stream = streams.get(in.getLong());
        if (!stream.capturing) {
          throw new ProtocolException(Status.BAD_REQUEST, "stream is not capturing");
        }
        stream.capturing = false;
        out.putLong(graphs.add(new Graph(stream.stream.endCapture())));
      }
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

  private long allocate(long bytes) throws ProtocolException, GpuException {
    if (bytes <= 0) {
      throw new ProtocolException(Status.BAD_REQUEST, "allocation size must be positive");
    }
    runtime.reserveMemory(bytes);
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
    memory.fail(consumed, why, message);
    memory.counters.putInt(SharedLayout.SESSION_STATE, why.code);
    if (gpuUsable) {
      freeOnGpu();
    }
    forget();
    disconnect.run();
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
