package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.DeviceLostException;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
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

/** Worker run mode on the simulated backend: real worker processes, real sockets. */
class WorkerModeTest {
  @TempDir Path directory;

  @Test
  void workersServeResizeAndComeBackAfterAFault() throws Exception {
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
      SmsliceClient a = connect(agent, "a");
      SmsliceClient b = connect(agent, "b");
      assertThat(a.info().sms()).isEqualTo(16);

      Stream stream = b.createStream();
      Kernel fill = b.kernel(b.loadModule(AgentFixture.KERNELS), "fill_u32");
      Buffer buffer = b.allocate(4);
      b.launch(fill, stream, 1, 1, Arg.buffer(buffer), Arg.i32(3), Arg.i32(1));
      agent.serve(new BoundClaim("team", "b", gpu, List.of(2, 3), 1 << 20));
      assertThat(b.usage()[2]).isEqualTo(16);
      assertThat(read(b, stream, buffer)).isEqualTo(3);
      assertThat(agent.renderMetrics())
          .contains("smslice_claim_launches_total{namespace=\"team\",claim=\"b\"")
          .contains("mode=\"worker\"");

      Stream s = a.createStream();
      Kernel load = a.kernel(a.loadModule(AgentFixture.KERNELS), "load_u32");
      Buffer out = a.allocate(4);
      assertThat(b.deviceAddress(buffer)).isPositive();
      a.launch(load, s, 1, 1, Arg.i64(0x10), Arg.buffer(out));
      assertThatThrownBy(() -> a.synchronize(s)).isInstanceOf(DeviceLostException.class);

      long deadline = System.nanoTime() + 30_000_000_000L;
      while (true) {
        try {
          b.reconnect(Duration.ofSeconds(20));
          Stream again = b.createStream();
          Buffer fresh = b.allocate(4);
          b.write(again, fresh, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, 9));
          assertThat(read(b, again, fresh)).isEqualTo(9);
          break;
        } catch (DeviceLostException e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
      }
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

  private static int read(SmsliceClient client, Stream stream, Buffer buffer) {
    MemorySegment out = Arena.ofAuto().allocate(4);
    client.read(stream, buffer, 0, out);
    return out.get(ValueLayout.JAVA_INT, 0);
  }
}
