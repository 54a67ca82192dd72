package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.DeviceLostException;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Graph;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Module;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResizeAndFaultTest {
  @TempDir Path directory;
  AgentFixture fixture;

  @BeforeEach
  void start() {
    fixture = new AgentFixture(directory);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  private static int readFirst(SmsliceClient client, Stream stream, Buffer buffer) {
    MemorySegment out = Arena.ofAuto().allocate(4);
    client.read(stream, buffer, 0, out);
    return out.get(ValueLayout.JAVA_INT, 0);
  }

  @Test
  void resizeKeepsLiveSessionsTheirMemoryAndHandles() throws Exception {
    fixture.serve("det", List.of(0, 1), AgentFixture.GIB);
    try (SmsliceClient client = fixture.connect("det")) {
      Stream stream = client.createStream();
      Module module = client.loadModule(AgentFixture.KERNELS);
      Kernel fill = client.kernel(module, "fill_u32");
      Buffer buffer = client.allocate(64);
      client.launch(fill, stream, 1, 16, Arg.buffer(buffer), Arg.i32(5), Arg.i32(16));
      client.beginCapture(stream);
      client.launch(fill, stream, 1, 16, Arg.buffer(buffer), Arg.i32(6), Arg.i32(16));
      Graph graph = client.endCapture(stream);
      // Work queued right before the resize must still run, in order.
      client.launch(fill, stream, 1, 1, Arg.buffer(buffer), Arg.i32(7), Arg.i32(1));

      fixture.serve("det", List.of(0, 1, 2, 3, 15), 2 * AgentFixture.GIB);

      assertThat(client.usage()[2]).isEqualTo(44);
      assertThat(client.usage()[1]).isEqualTo(2 * AgentFixture.GIB);
      assertThat(readFirst(client, stream, buffer)).isEqualTo(7);
      client.launch(fill, stream, 1, 16, Arg.buffer(buffer), Arg.i32(8), Arg.i32(16));
      assertThat(readFirst(client, stream, buffer)).isEqualTo(8);
      // The live stream now runs on the new context's SMs: groups 0-3 (SMs 0..31) and 15.
      Buffer smids = client.allocate(4 * 64);
      client.launch(client.kernel(module, "record_smid"), stream, 64, 1, Arg.buffer(smids));
      MemorySegment ids = Arena.ofAuto().allocate(4 * 64);
      client.read(stream, smids, 0, ids);
      assertThat(java.util.Arrays.stream(ids.toArray(ValueLayout.JAVA_INT)).distinct().count())
          .isEqualTo(44);
      assertThat(ids.toArray(ValueLayout.JAVA_INT)).contains(31, 120, 131);
      client.launchGraph(graph, stream);
      assertThatThrownBy(() -> client.synchronize(stream))
          .hasMessageContaining("captured before the claim was resized");
    }
    assertThat(fixture.agent.runtime("team", "det").orElseThrow().metrics().lastResizeNanos())
        .isPositive();
    assertThat(fixture.agent.runtime("team", "det").orElseThrow().groups())
        .containsExactly(0, 1, 2, 3, 15);
  }

  @Test
  void resizeToBadGroupsKeepsTheOldContext() {
    fixture.serve("det", List.of(0), AgentFixture.GIB);
    assertThatThrownBy(() -> fixture.serve("det", List.of(0, 99), AgentFixture.GIB))
        .hasMessageContaining("not in the split");
    assertThat(fixture.agent.runtime("team", "det").orElseThrow().sms()).isEqualTo(8);
  }

  @Test
  void aFaultEndsEverySessionOfTheGpuThenAllServeAgain() throws Exception {
    fixture.serve("culprit", List.of(0, 1), AgentFixture.GIB);
    fixture.serve("victim", List.of(2, 3), AgentFixture.GIB);
    SmsliceClient culprit = fixture.connect("culprit");
    SmsliceClient victim = fixture.connect("victim");
    Stream victimStream = victim.createStream();
    Buffer victimBuffer = victim.allocate(4);

    Stream stream = culprit.createStream();
    Kernel load = culprit.kernel(culprit.loadModule(AgentFixture.KERNELS), "load_u32");
    Buffer out = culprit.allocate(4);
    culprit.launch(load, stream, 1, 1, Arg.i64(0xdead_0000L), Arg.buffer(out));
    assertThatThrownBy(() -> culprit.synchronize(stream))
        .isInstanceOfSatisfying(
            DeviceLostException.class, e -> assertThat(e.status()).isEqualTo(Status.FAULT));
    assertThatThrownBy(() -> readFirst(victim, victimStream, victimBuffer))
        .isInstanceOfSatisfying(
            DeviceLostException.class, e -> assertThat(e.status()).isEqualTo(Status.DEVICE_LOST));

    victim.reconnect(Duration.ofSeconds(5));
    Stream again = victim.createStream();
    Buffer fresh = victim.allocate(4);
    victim.write(again, fresh, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, 12));
    assertThat(readFirst(victim, again, fresh)).isEqualTo(12);
    culprit.reconnect(Duration.ofSeconds(5));
    assertThat(culprit.usage()[0]).isZero();
    long recovery =
        fixture.agent.runtime("team", "victim").orElseThrow().metrics().lastRecoveryNanos();
    assertThat(recovery).isPositive().isLessThan(1_000_000_000L);
    assertThat(fixture.agent.renderMetrics())
        .contains("smslice_claim_faults_total{namespace=\"team\",claim=\"culprit\"");
    culprit.close();
    victim.close();
  }
}
