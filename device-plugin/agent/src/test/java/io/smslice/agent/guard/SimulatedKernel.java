package io.smslice.agent.guard;

import io.smslice.gpu.GpuFunction;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A kernel and a stream to launch it on, in a 16-SM green context of a simulated H200. */
record SimulatedKernel(GreenContext context, GpuFunction function, GpuStream stream)
    implements AutoCloseable {
  static SimulatedKernel named(String entry) throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    GreenContext context =
        backend.createGreenContext(backend.devices().getFirst().uuid(), List.of(0, 1));
    GpuFunction function =
        context
            .loadModule(
                (".visible .entry " + entry + "() { ret; }\n").getBytes(StandardCharsets.UTF_8))
            .function(entry);
    return new SimulatedKernel(context, function, context.createStream());
  }

  @Override
  public void close() throws Exception {
    stream.close();
    context.close();
  }
}
