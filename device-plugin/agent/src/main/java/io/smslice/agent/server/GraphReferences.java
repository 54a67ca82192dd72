package io.smslice.agent.server;

import io.smslice.agent.server.SessionObjects.Graph;
import io.smslice.agent.server.SessionObjects.Stream;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuGraph;
import io.smslice.protocol.Status;
import java.util.Map;

/**
 * What a session's graphs use. A replayed graph runs the operations captured into it, with the
 * device addresses and kernels they had: so while a graph (or a capture in progress) uses a buffer
 * or module, freeing or unloading it is refused, and a capture holds a bounded number of
 * operations.
 */
final class GraphReferences {
  private GraphReferences() {}

  /** Counts one more operation into a capturing stream's graph. */
  static void captureOperation(Session session, Stream stream) throws ProtocolException {
    if (stream.capturing && ++stream.capturedOperations > session.limits().graphOperations()) {
      throw new ProtocolException(
          Status.QUOTA_EXCEEDED,
          "a graph may hold at most "
              + session.limits().graphOperations()
              + " operations; end the capture");
    }
  }

  static void useBuffer(Stream stream, long buffer) {
    if (stream.capturing) {
      stream.capturedBuffers.add(buffer);
    }
  }

  static void useModule(Stream stream, long module) {
    if (stream.capturing) {
      stream.capturedModules.add(module);
    }
  }

  /** A graph replayed into a capture: the new graph uses what that one uses. */
  static void useGraph(Stream stream, Graph graph) {
    if (stream.capturing) {
      stream.capturedBuffers.addAll(graph.buffers);
      stream.capturedModules.addAll(graph.modules);
    }
  }

  /** Ends a capture into a new graph handle that keeps what the graph uses. */
  static long endCapture(Session session, Stream stream) throws ProtocolException, GpuException {
    if (!stream.capturing) {
      throw new ProtocolException(Status.BAD_REQUEST, "stream is not capturing");
    }
    stream.capturing = false;
    GpuGraph graph = stream.stream.endCapture();
    try {
      // Two streams may have begun capturing while there was room for one more graph.
      Session.checkRoom(session.graphs, session.limits().graphs(), "graphs");
    } catch (ProtocolException e) {
      graph.close();
      throw e;
    }
    return session.graphs.add(new Graph(graph, stream.capturedBuffers, stream.capturedModules));
  }

  /** Refuses to free or unload {@code handle} while a graph or a capture uses it. */
  static void refuseIfUsed(Session session, String kind, long handle) throws ProtocolException {
    boolean buffer = kind.equals("buffer");
    for (Map.Entry<Long, Graph> graph : session.graphs.entries().entrySet()) {
      if ((buffer ? graph.getValue().buffers : graph.getValue().modules).contains(handle)) {
        throw new ProtocolException(
            Status.UNSUPPORTED,
            kind
                + " "
                + handle
                + " is used by graph "
                + graph.getKey()
                + "; destroy the graph first");
      }
    }
    for (Map.Entry<Long, Stream> stream : session.streams.entries().entrySet()) {
      Stream capture = stream.getValue();
      if (capture.capturing
          && (buffer ? capture.capturedBuffers : capture.capturedModules).contains(handle)) {
        throw new ProtocolException(
            Status.UNSUPPORTED,
            kind
                + " "
                + handle
                + " is used by the graph being captured on stream "
                + stream.getKey()
                + "; end the capture and destroy the graph first");
      }
    }
  }
}
