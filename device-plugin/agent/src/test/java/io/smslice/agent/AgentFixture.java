package io.smslice.agent;

import io.smslice.client.SmsliceClient;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** An agent on the simulated backend (one H200-shaped GPU) in a temporary directory. */
final class AgentFixture implements AutoCloseable {
  static final long GIB = 1L << 30;
  static final byte[] KERNELS = ptx();

  final GpuBackend backend;
  final String gpu;
  final Agent agent;

  AgentFixture(Path directory) {
    this(directory, SimulatedBackend.h200(1));
  }

  AgentFixture(Path directory, GpuBackend backend) {
    this.backend = backend;
    this.gpu = backend.devices().getFirst().uuid();
    AgentOptions options =
        new AgentOptions(
            "node-a",
            directory.resolve("run"),
            directory.resolve("state"),
            RunMode.IN_AGENT,
            1 << 20,
            8,
            1 << 20);
    agent = Agent.start(options, null, backend, null);
  }

  private static byte[] ptx() {
    try {
      return Files.readAllBytes(Path.of("verify/kernels.ptx"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void serve(String name, List<Integer> groups, long memory) {
    try {
      agent.serve(new BoundClaim("team", name, gpu, groups, memory));
    } catch (GpuException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  Path socket(String name) {
    return agent.endpoint("team", name).orElseThrow().socket();
  }

  SmsliceClient connect(String name) {
    String token = agent.issueToken("team", name, "pod-1", "main");
    return SmsliceClient.connect(socket(name), "team/" + name, token);
  }

  @Override
  public void close() {
    agent.close();
  }
}
