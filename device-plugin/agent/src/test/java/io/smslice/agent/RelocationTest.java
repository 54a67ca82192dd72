package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.DeviceLostException;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuDevice;
import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.MpsServers;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-agent, a GPU whose context cannot be reset (as a real driver does after a sticky fault) has
 * its claims moved to worker processes, and tenants reconnect to the same sockets.
 */
class RelocationTest {
  @TempDir Path directory;

  /** The simulated GPU, but resetting it fails the way driver 580 does. */
  private record UnresettableGpu(SimulatedBackend gpu) implements GpuBackend {
    @Override
    public String backendName() {
      return gpu.backendName();
    }

    @Override
    public List<GpuDevice> devices() {
      return gpu.devices();
    }

    @Override
    public boolean simulated() {
      return true;
    }

    @Override
    public GreenContext createGreenContext(String uuid, List<Integer> groups) throws GpuException {
      return gpu.createGreenContext(uuid, groups);
    }

    @Override
    public void resetDevice(String uuid) throws GpuException {
      throw new GpuException(GpuError.ILLEGAL_ADDRESS, "cuDevicePrimaryCtxRetain: sticky error");
    }

    @Override
    public void close() {}
  }

  @Test
  void claimsMoveToWorkersWhenTheGpuCannotBeReset() throws Exception {
    UnresettableGpu backend = new UnresettableGpu(SimulatedBackend.h200(1));
    String gpu = backend.devices().getFirst().uuid();
    AtomicInteger restarts = new AtomicInteger();
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return directory.resolve("mps");
          }

          @Override
          public void restart(String gpuUuid) {
            restarts.incrementAndGet();
          }
        };
    AgentOptions options =
        new AgentOptions(
            "node-a",
            directory.resolve("run"),
            directory.resolve("state"),
            RunMode.IN_AGENT,
            1 << 20,
            8,
            1 << 20);
    try (Agent agent = Agent.start(options, null, backend, mps)) {
      agent.serve(new BoundClaim("team", "culprit", gpu, List.of(0), 1 << 20));
      agent.serve(new BoundClaim("team", "victim", gpu, List.of(1), 1 << 20));
      SmsliceClient culprit = connect(agent, "culprit");
      SmsliceClient victim = connect(agent, "victim");
      Stream victimStream = victim.createStream();

      Stream stream = culprit.createStream();
      Buffer out = culprit.allocate(4);
      culprit.launch(
          culprit.kernel(culprit.loadModule(AgentFixture.KERNELS), "load_u32"),
          stream,
          1,
          1,
          Arg.i64(0x10),
          Arg.buffer(out));
      assertThatThrownBy(() -> culprit.synchronize(stream)).isInstanceOf(DeviceLostException.class);
      assertThatThrownBy(() -> victim.synchronize(victimStream))
          .isInstanceOf(DeviceLostException.class);

      victim.reconnect(Duration.ofSeconds(30));
      Stream again = victim.createStream();
      Buffer buffer = victim.allocate(4);
      victim.write(again, buffer, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, 6));
      MemorySegment back = Arena.ofAuto().allocate(4);
      victim.read(again, buffer, 0, back);
      assertThat(back.get(ValueLayout.JAVA_INT, 0)).isEqualTo(6);
      assertThat(restarts).hasValue(1);
      assertThat(agent.runtime("team", "victim")).isEmpty(); // now served by a worker
      assertThat(agent.metrics("team", "victim").orElseThrow().lastRecoveryNanos()).isPositive();
      assertThat(agent.renderMetrics())
          .contains("claim=\"victim\",gpu=\"" + gpu + "\",mode=\"worker\"");
      culprit.close();
      victim.close();
    }
  }

  private static SmsliceClient connect(Agent agent, String name) {
    return SmsliceClient.connect(
        agent.endpoint("team", name).orElseThrow().socket(),
        "team/" + name,
        agent.issueToken("team", name, "pod", "main"));
  }
}
