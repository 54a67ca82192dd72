package io.smslice.agent.server;

import io.smslice.agent.server.SessionObjects.Event;
import io.smslice.agent.server.SessionObjects.Function;
import io.smslice.agent.server.SessionObjects.Graph;
import io.smslice.agent.server.SessionObjects.Module;
import io.smslice.agent.server.SessionObjects.Stream;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves live sessions from one green context to another (a resize): their streams, events and
 * modules are made again in the new context under the same handles; device memory stays where it is
 * (it belongs to the GPU's shared context). Nothing is changed unless everything could be made.
 */
final class GreenContextSwap {
  private final Map<Stream, GpuStream> streams = new IdentityHashMap<>();
  private final Map<Event, GpuEvent> events = new IdentityHashMap<>();
  private final Map<Module, GpuModule> modules = new IdentityHashMap<>();
  private final Map<Function, GpuFunction> functions = new IdentityHashMap<>();
  private final List<AutoCloseable> old = new ArrayList<>();

  /**
   * Moves every session from {@code old} to a new green context of {@code groups}, which it returns
   * current on this thread; on failure the sessions and {@code old} are as they were.
   */
  static GreenContext move(
      List<Session> sessions,
      GreenContext old,
      GpuBackend backend,
      String gpuUuid,
      List<Integer> groups)
      throws GpuException {
    for (Session session : sessions) {
      session.drain();
      session.synchronizeAll();
    }
    GreenContext next = backend.createGreenContext(gpuUuid, groups);
    GreenContextSwap swap;
    try {
      next.makeCurrent();
      swap = prepare(sessions, next);
    } catch (GpuException e) {
      old.makeCurrent();
      next.close();
      throw e;
    }
    swap.commit(sessions);
    old.makeCurrent();
    swap.closeOld();
    old.close(); // also unbinds it from this thread
    next.makeCurrent();
    return next;
  }

  /** Makes the replacements with {@code next} current; on failure closes what it made. */
  private static GreenContextSwap prepare(List<Session> sessions, GreenContext next)
      throws GpuException {
    GreenContextSwap swap = new GreenContextSwap();
    try {
      for (Session session : sessions) {
        for (Stream stream : session.streams.values()) {
          swap.streams.put(stream, next.createStream());
        }
        for (Event event : session.events.values()) {
          swap.events.put(event, next.createEvent());
        }
        for (Module module : session.modules.values()) {
          swap.modules.put(module, next.loadModule(module.image));
        }
        for (Function function : session.functions.values()) {
          GpuModule module = swap.modules.get(session.modules.get(function.module));
          swap.functions.put(function, module.function(function.name));
        }
      }
    } catch (GpuException | ProtocolException e) {
      swap.streams.values().forEach(GpuStream::close);
      swap.events.values().forEach(GpuEvent::close);
      swap.modules.values().forEach(GpuModule::close);
      throw e instanceof GpuException g
          ? g
          : new GpuException(io.smslice.gpu.GpuError.INVALID_VALUE, e.getMessage());
    }
    return swap;
  }

  /** Installs the replacements; graphs captured in the old context can no longer be launched. */
  private void commit(List<Session> sessions) {
    streams.forEach(
        (entry, stream) -> {
          old.add(entry.stream);
          entry.stream = stream;
        });
    events.forEach(
        (entry, event) -> {
          old.add(entry.event);
          entry.event = event;
        });
    modules.forEach(
        (entry, module) -> {
          old.add(entry.module);
          entry.module = module;
        });
    functions.forEach((entry, function) -> entry.function = function);
    for (Session session : sessions) {
      for (Graph graph : session.graphs.values()) {
        graph.stale = true;
      }
    }
  }

  /** Closes the old objects; call with the old context current. */
  private void closeOld() {
    for (AutoCloseable closeable : old) {
      try {
        closeable.close();
      } catch (Exception e) {
        // Best effort: the old context is destroyed next anyway.
      }
    }
  }
}
