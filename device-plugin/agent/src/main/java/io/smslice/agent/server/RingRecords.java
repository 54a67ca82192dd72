package io.smslice.agent.server;

import io.smslice.agent.guard.ClaimGuard;
import io.smslice.agent.server.SessionObjects.Buffer;
import io.smslice.agent.server.SessionObjects.Function;
import io.smslice.agent.server.SessionObjects.Graph;
import io.smslice.agent.server.SessionObjects.Stream;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.KernelArg;
import io.smslice.gpu.LaunchGeometry;
import io.smslice.protocol.RingOp;
import io.smslice.protocol.SharedLayout;
import io.smslice.protocol.Status;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Decodes one ring record, checks every handle and range against its session, and runs it. */
final class RingRecords {
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

  private RingRecords() {}

  /** Whether the tenant waits for this record's completion (a synchronization). */
  static boolean waits(MemorySegment record) {
    int op = record.get(INT, 0);
    return op == RingOp.SYNC_STREAM || op == RingOp.SYNC_EVENT;
  }

  static void run(Session session, MemorySegment record) throws ProtocolException, GpuException {
    int op = record.get(INT, 0);
    ClaimGuard guard = session.runtime().guard();
    boolean queues =
        guard != null
            && (op == RingOp.LAUNCH
                || op == RingOp.LAUNCH_GRAPH
                || (op >= RingOp.COPY_TO_DEVICE && op <= RingOp.FILL));
    if (queues) {
      guard.beforeQueue();
    }
    runOp(session, record, op);
    if (queues) {
      Stream on =
          session.streams.get(
              record.get(LONG, op == RingOp.LAUNCH || op == RingOp.LAUNCH_GRAPH ? 16 : 8));
      if (!on.capturing) {
        guard.queued(on.stream, session.context());
      }
    }
  }

  private static void runOp(Session session, MemorySegment record, int op)
      throws ProtocolException, GpuException {
    switch (op) {
      case RingOp.LAUNCH -> launch(session, record);
      case RingOp.COPY_TO_DEVICE -> {
        Stream stream = stream(session, record.get(LONG, 8));
        long bytes = record.get(LONG, 40);
        long device = address(session, stream, record.get(LONG, 16), record.get(LONG, 24), bytes);
        stream.stream.copyToDevice(device, session.memory.data(record.get(LONG, 32), bytes));
      }
      case RingOp.COPY_TO_HOST -> {
        Stream stream = stream(session, record.get(LONG, 8));
        long bytes = record.get(LONG, 40);
        long device = address(session, stream, record.get(LONG, 16), record.get(LONG, 24), bytes);
        stream.stream.copyToHost(session.memory.data(record.get(LONG, 32), bytes), device);
      }
      case RingOp.COPY_DEVICE_TO_DEVICE -> {
        Stream stream = stream(session, record.get(LONG, 8));
        long bytes = record.get(LONG, 48);
        long target = address(session, stream, record.get(LONG, 16), record.get(LONG, 24), bytes);
        long source = address(session, stream, record.get(LONG, 32), record.get(LONG, 40), bytes);
        stream.stream.copyDeviceToDevice(target, source, bytes);
      }
      case RingOp.FILL -> {
        Stream stream = stream(session, record.get(LONG, 8));
        long bytes = record.get(LONG, 32);
        long device = address(session, stream, record.get(LONG, 16), record.get(LONG, 24), bytes);
        stream.stream.fill(device, (byte) record.get(LONG, 40), bytes);
      }
      case RingOp.RECORD_EVENT ->
          stream(session, record.get(LONG, 16))
              .stream
              .record(session.events.get(record.get(LONG, 8)).event);
      case RingOp.WAIT_EVENT ->
          stream(session, record.get(LONG, 8))
              .stream
              .waitFor(session.events.get(record.get(LONG, 16)).event);
      case RingOp.SYNC_STREAM -> {
        Stream stream = stream(session, record.get(LONG, 8));
        if (stream.capturing) {
          throw new ProtocolException(Status.BAD_REQUEST, "cannot synchronize a capturing stream");
        }
        long start = System.nanoTime();
        stream.stream.synchronize();
        session.runtime().metrics().synchronizedFor(System.nanoTime() - start);
      }
      case RingOp.SYNC_EVENT -> {
        GpuEvent event = session.events.get(record.get(LONG, 8)).event;
        long start = System.nanoTime();
        event.synchronize();
        session.runtime().metrics().synchronizedFor(System.nanoTime() - start);
      }
      case RingOp.LAUNCH_GRAPH -> {
        Graph graph = session.graphs.get(record.get(LONG, 8));
        if (graph.stale) {
          throw new ProtocolException(
              Status.UNSUPPORTED,
              "graph was captured before the claim was resized; capture it again");
        }
        Stream stream = stream(session, record.get(LONG, 16));
        GraphReferences.useGraph(stream, graph);
        stream.stream.launchGraph(graph.graph);
      }
      default -> throw new ProtocolException(Status.BAD_REQUEST, "unknown ring operation " + op);
    }
  }

  private static void launch(Session session, MemorySegment record)
      throws ProtocolException, GpuException {
    int argc = record.get(INT, 4);
    if (argc < 0 || argc > SharedLayout.MAX_KERNEL_ARGS) {
      throw new ProtocolException(
          Status.BAD_REQUEST,
          "kernel argument count " + argc + " outside 0.." + SharedLayout.MAX_KERNEL_ARGS);
    }
    Function function = session.functions.get(record.get(LONG, 8));
    Stream stream = stream(session, record.get(LONG, 16));
    GraphReferences.useModule(stream, function.module);
    LaunchGeometry geometry;
    try {
      geometry =
          new LaunchGeometry(
              record.get(INT, 24),
              record.get(INT, 28),
              record.get(INT, 32),
              record.get(INT, 36),
              record.get(INT, 40),
              record.get(INT, 44),
              record.get(INT, 48));
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(Status.BAD_REQUEST, e.getMessage());
    }
    List<KernelArg> args = new ArrayList<>(argc);
    for (int i = 0; i < argc; i++) {
      long at = SharedLayout.LAUNCH_ARGS_OFFSET + (long) i * SharedLayout.ARG_BYTES;
      byte kind = record.get(ValueLayout.JAVA_BYTE, at);
      long a = record.get(LONG, at + 1);
      args.add(
          switch (kind) {
            case RingOp.ARG_BUFFER ->
                new KernelArg.Pointer(address(session, stream, a, record.get(LONG, at + 9), 0));
            case RingOp.ARG_I32 -> new KernelArg.I32((int) a);
            case RingOp.ARG_I64 -> new KernelArg.I64(a);
            case RingOp.ARG_F32 -> new KernelArg.F32(Float.intBitsToFloat((int) a));
            case RingOp.ARG_F64 -> new KernelArg.F64(Double.longBitsToDouble(a));
            default ->
                throw new ProtocolException(
                    Status.BAD_REQUEST, "unknown kind " + kind + " of kernel argument " + i);
          });
    }
    long start = System.nanoTime();
    stream.stream.launch(function.function, geometry, args);
    session.runtime().metrics().launched(System.nanoTime() - start);
  }

  /** The stream an operation is queued on; counted when it is capturing a graph. */
  private static Stream stream(Session session, long handle) throws ProtocolException {
    Stream stream = session.streams.get(handle);
    GraphReferences.captureOperation(session, stream);
    return stream;
  }

  /**
   * The device address of [offset, offset + bytes) of a session's buffer; checked, and kept by the
   * graph when {@code stream} is capturing one.
   */
  private static long address(Session session, Stream stream, long handle, long offset, long bytes)
      throws ProtocolException {
    Buffer buffer = session.buffers.get(handle);
    if (offset < 0
        || bytes < 0
        || offset > buffer.bytes()
        || bytes > buffer.bytes() - offset
        || (bytes == 0 && offset == buffer.bytes() && offset > 0)) {
      throw new ProtocolException(
          Status.BAD_REQUEST,
          "range "
              + offset
              + "+"
              + bytes
              + " is outside buffer "
              + handle
              + " of "
              + buffer.bytes()
              + " bytes");
    }
    GraphReferences.useBuffer(stream, handle);
    return buffer.address() + offset;
  }
}
