package io.smslice.agent.server;

import io.smslice.gpu.GpuEvent;
import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuGraph;
import io.smslice.gpu.GpuModule;
import io.smslice.gpu.GpuStream;

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

    Stream(GpuStream stream) {
      this.stream = stream;
    }
  }

  static final class Event {
    GpuEvent event;

    Event(GpuEvent event) {
      this.event = event;
    }
  }

  static final class Graph {
    final GpuGraph graph;

    /** Captured in a green context that a resize has since replaced. */
    boolean stale;

    Graph(GpuGraph graph) {
      this.graph = graph;
    }
  }
}
