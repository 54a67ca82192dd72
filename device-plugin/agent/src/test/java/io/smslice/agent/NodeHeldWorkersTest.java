package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's client-fault recovery holds the agent's workers of a GPU stopped (so they release the
 * faulted MPS server) and starts them again on the same sockets: real worker processes on the
 * simulated backend.
 */
class NodeHeldWorkersTest {
  @TempDir Path directory;

  @Test
  void workersStopWhileHeldAndServeTheSameSocketsWhenStartedAgain() throws Exception {
    SimulatedBackend backend = SimulatedBackend.h200(1);
    String gpu = backend.devices().getFirst().uuid();
    AgentOptions options =
        new AgentOptions(
            "node-a",
            directory.resolve("run"),
            directory.resolve("state"),
            RunMode.WORKER,
            1 << 20,
            8,
            1 << 20);
    try (Agent agent = Agent.start(options, null, backend, null)) {
      agent.serve(new BoundClaim("team", "a", gpu, List.of(0, 1), 1 << 20));
      agent.serve(new BoundClaim("team", "b", gpu, List.of(2), 1 << 20));
      Path socket = agent.endpoint("team", "a").orElseThrow().socket();
      SmsliceClient a = connect(agent, "a");
      SmsliceClient b = connect(agent, "b");

      assertThat(agent.stopWorkers(gpu)).isTrue();
      assertThat(agent.stopWorkers(gpu)).as("a second fault joins the recovery").isFalse();
      assertThatThrownBy(() -> connect(agent, "a")).as("a's worker is stopped");
      assertThatThrownBy(() -> connect(agent, "b")).as("b's worker is stopped");

      agent.startWorkers(gpu);
      a.reconnect(Duration.ofSeconds(30));
      assertThat(agent.endpoint("team", "a").orElseThrow().socket()).isEqualTo(socket);
      assertThat(write(a, 9)).isEqualTo(9);
      b.reconnect(Duration.ofSeconds(30));
      assertThat(write(b, 5)).isEqualTo(5);
      assertThat(agent.stopWorkers(gpu)).as("the recovery has ended").isTrue();
      agent.startWorkers(gpu);
      a.reconnect(Duration.ofSeconds(30));
      assertThat(write(a, 11)).isEqualTo(11);
      a.close();
      b.close();
    }
  }

  private static SmsliceClient connect(Agent agent, String name) {
    return SmsliceClient.connect(
        agent.endpoint("team", name).orElseThrow().socket(),
        "team/" + name,
        agent.issueToken("team", name, "pod", "main"));
  }

  private static int write(SmsliceClient client, int value) {
    Stream stream = client.createStream();
    Buffer buffer = client.allocate(4);
    client.write(stream, buffer, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, value));
    MemorySegment out = Arena.ofAuto().allocate(4);
    client.read(stream, buffer, 0, out);
    return out.get(ValueLayout.JAVA_INT, 0);
  }
}
