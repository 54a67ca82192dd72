package io.smslice.agent.server;

import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuGraph;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;
import java.util.HashSet;
import java.util.Set;

/**
 * What a session's handles stand for. Modules, functions, streams and events are re-made in the new
 * green context when the claim is resized, so they hold the current GPU object in a field.
 */
final class SessionObjects {
  private SessionObjects() {}

  record Buffer(long address, long bytes) {}

  static final class Module {
    final byte[] image;
    GpuModule module;

    Module(byte[] image, GpuModule module) {
      this.image = image;
      this.module = module;
    }
  }

  static final class Function {
    final long module;
    final String name;
    GpuFunction function;

    Function(long module, String name, GpuFunction function) {
      this.module = module;
      this.name = name;
      this.function = function;
    }
  }

  static final class Stream {
    GpuStream stream;
    boolean capturing;

    /** While capturing: what the graph will use, and how many operations it holds. */
    final Set<Long> capturedBuffers = new HashSet<>();

    final Set<Long> capturedModules = new HashSet<>();
    int capturedOperations;

    Stream(GpuStream stream) {
      this.stream = stream;
    }

    void startCapture() {
      capturing = true;
      capturedBuffers.clear();
      capturedModules.clear();
      capturedOperations = 0;
    }
  }

  static final class Event {
    GpuEvent event;

    Event(GpuEvent event) {
      this.event = event;
    }
  }

  /**
   * A graph keeps the handles of the buffers and modules its operations use: they cannot be freed
   * or unloaded while it exists, so replaying it never touches freed memory or code.
   */
  static final class Graph {
    final GpuGraph graph;
    final Set<Long> buffers;
    final Set<Long> modules;

    /** Captured in a green context that a resize has since replaced. */
    boolean stale;

    Graph(GpuGraph graph, Set<Long> buffers, Set<Long> modules) {
      this.graph = graph;
      this.buffers = Set.copyOf(buffers);
      this.modules = Set.copyOf(modules);
    }
  }
}
