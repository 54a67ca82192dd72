package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Event;
import io.smslice.client.Handles.Graph;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Module;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.client.SmsliceException;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TenantProtocolTest {
  @TempDir Path directory;
  AgentFixture fixture;
  SmsliceClient client;
  Stream stream;
  Module module;

  @BeforeEach
  void start() {
    fixture = new AgentFixture(directory);
    fixture.serve("det", List.of(0, 1), 1 << 20);
    client = fixture.connect("det");
    stream = client.createStream();
    module = client.loadModule(AgentFixture.KERNELS);
  }

  @AfterEach
  void stop() {
    client.close();
    fixture.close();
  }

  private static MemorySegment ints(int... values) {
    return Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, values);
  }

  private int[] read(Buffer buffer, int count) {
    MemorySegment out = Arena.ofAuto().allocate(4L * count);
    client.read(stream, buffer, 0, out);
    return out.toArray(ValueLayout.JAVA_INT);
  }

  @Test
  void helloDescribesTheSessionAndSaysItIsSimulated() {
    assertThat(client.info().sms()).isEqualTo(16);
    assertThat(client.info().memoryQuota()).isEqualTo(1 << 20);
    assertThat(client.info().simulated()).isTrue();
    assertThat(client.info().backend()).isEqualTo("simulated");
  }

  @Test
  void copiesAndKernelLaunchesComputeOnDeviceMemory() {
    Kernel add = client.kernel(module, "vector_add");
    Buffer a = client.allocate(16);
    Buffer b = client.allocate(16);
    Buffer c = client.allocate(16);
    client.write(stream, a, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4));
    client.write(stream, b, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_FLOAT, 10, 20, 30, 40));
    client.launch(add, stream, 1, 32, Arg.buffer(a), Arg.buffer(b), Arg.buffer(c), Arg.i32(4));
    MemorySegment out = Arena.ofAuto().allocate(16);
    client.read(stream, c, 0, out);
    assertThat(out.toArray(ValueLayout.JAVA_FLOAT)).containsExactly(11, 22, 33, 44);
  }

  @Test
  void fillCopyAndOffsetsStayInsideBuffers() {
    Buffer a = client.allocate(32);
    Buffer b = client.allocate(32);
    client.fill(stream, a, 0, 32, (byte) 1);
    client.launch(
        client.kernel(module, "fill_u32"), stream, 1, 4, Arg.buffer(a, 16), Arg.i32(9), Arg.i32(4));
    client.copy(stream, b, 0, a, 0, 32);
    assertThat(read(b, 8))
        .containsExactly(0x01010101, 0x01010101, 0x01010101, 0x01010101, 9, 9, 9, 9);

    client.copy(stream, b, 16, a, 0, 32);
    assertThatThrownBy(() -> client.synchronize(stream))
        .isInstanceOfSatisfying(
            SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.BAD_REQUEST))
        .hasMessageContaining("outside buffer");
    client.synchronize(stream); // the error was reported once; the session goes on
  }

  @Test
  void stagingCopiesAreZeroCopyAndAsync() {
    Buffer buffer = client.allocate(8);
    client.staging().set(ValueLayout.JAVA_INT, 100, 77);
    client.copyFromStaging(stream, buffer, 4, 100, 4);
    client.copyToStaging(stream, buffer, 4, 200, 4);
    client.synchronize(stream);
    assertThat(client.staging().get(ValueLayout.JAVA_INT, 200)).isEqualTo(77);
  }

  /**
   * A wait is for the event's record at the time the wait is issued: recording the event again
   * later, before the waiting stream runs, neither moves the wait nor lets it wait for more.
   */
  @Test
  void aWaitKeepsTheRecordItWasIssuedFor() {
    Stream second = client.createStream();
    Event event = client.createEvent();
    Buffer before = client.allocate(4);
    Buffer after = client.allocate(4);
    Kernel fill = client.kernel(module, "fill_u32");
    client.launch(fill, stream, 1, 1, Arg.buffer(before), Arg.i32(5), Arg.i32(1));
    client.record(event, stream);
    client.waitFor(second, event);
    client.launch(fill, stream, 1, 1, Arg.buffer(after), Arg.i32(6), Arg.i32(1));
    client.record(event, stream);

    MemorySegment out = Arena.ofAuto().allocate(4);
    client.read(second, before, 0, out);
    assertThat(out.get(ValueLayout.JAVA_INT, 0))
        .as("the fill before the wait's record")
        .isEqualTo(5);
    client.read(second, after, 0, out);
    assertThat(out.get(ValueLayout.JAVA_INT, 0)).as("the fill after it, not waited for").isZero();
    client.synchronize(stream);
    client.read(second, after, 0, out);
    assertThat(out.get(ValueLayout.JAVA_INT, 0)).isEqualTo(6);
  }

  @Test
  void eventsOrderStreams() {
    Stream second = client.createStream();
    Event event = client.createEvent();
    Buffer buffer = client.allocate(4);
    Kernel fill = client.kernel(module, "fill_u32");
    // Queued on the first stream and not waited for: only the event orders it before the read.
    client.launch(fill, stream, 1, 1, Arg.buffer(buffer), Arg.i32(5), Arg.i32(1));
    client.record(event, stream);
    client.waitFor(second, event);
    MemorySegment out = Arena.ofAuto().allocate(4);
    client.read(second, buffer, 0, out);
    assertThat(out.get(ValueLayout.JAVA_INT, 0)).isEqualTo(5);

    client.launch(fill, stream, 1, 1, Arg.buffer(buffer), Arg.i32(6), Arg.i32(1));
    client.record(event, stream);
    client.synchronize(event);
    client.copyToStaging(second, buffer, 0, 0, 4);
    client.synchronize(second);
    assertThat(client.staging().get(ValueLayout.JAVA_INT, 0)).isEqualTo(6);
    client.destroy(event);
    client.destroy(second);
    assertThatThrownBy(() -> client.destroy(second))
        .isInstanceOfSatisfying(
            SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.NOT_FOUND));
  }

  @Test
  void graphsCaptureAndReplay() {
    Buffer buffer = client.allocate(16);
    Kernel fill = client.kernel(module, "fill_u32");
    client.beginCapture(stream);
    client.launch(fill, stream, 1, 4, Arg.buffer(buffer), Arg.i32(3), Arg.i32(4));
    Graph graph = client.endCapture(stream);
    assertThat(read(buffer, 4)).containsOnly(0);
    client.launchGraph(graph, stream);
    client.launchGraph(graph, stream);
    assertThat(read(buffer, 4)).containsOnly(3);
    client.destroy(graph);
  }

  @Test
  void moduleLifecycleAndBadImages() {
    client.unload(module);
    assertThatThrownBy(() -> client.kernel(module, "empty")).hasMessageContaining("no module");
    assertThatThrownBy(() -> client.loadModule(new byte[] {0x7f, 'E', 'L', 'F', 0}))
        .isInstanceOfSatisfying(
            SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.GPU_ERROR));
    Module again = client.loadModule(AgentFixture.KERNELS);
    assertThatThrownBy(() -> client.kernel(again, "no_such_kernel"))
        .hasMessageContaining("no kernel no_such_kernel");
  }

  @Test
  void launchArgumentsAreTypeChecked() {
    Kernel fill = client.kernel(module, "fill_u32");
    client.launch(fill, stream, 1, 4, Arg.i32(1));
    assertThatThrownBy(() -> client.synchronize(stream)).hasMessageContaining("takes 3 arguments");
    Buffer buffer = client.allocate(4);
    client.launch(fill, stream, 1, 4, Arg.buffer(buffer, 8), Arg.i32(1), Arg.i32(1));
    assertThatThrownBy(() -> client.synchronize(stream)).hasMessageContaining("outside buffer");
  }

  @Test
  void memoryQuotaIsPerClaimAndFreedWithTheSession() {
    Buffer big = client.allocate(768 << 10);
    try (SmsliceClient other = fixture.connect("det")) {
      assertThatThrownBy(() -> other.allocate(512 << 10))
          .isInstanceOfSatisfying(
              SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.QUOTA_EXCEEDED))
          .hasMessageContaining("memory quota");
      other.allocate(128 << 10);
      // The module loaded in start() counts too.
      assertThat(other.usage()[0]).isEqualTo(((768 + 128) << 10) + AgentFixture.KERNELS.length);
    }
    client.free(big);
    awaitMemoryUsed(AgentFixture.KERNELS.length);
    assertThatThrownBy(() -> client.allocate(0)).hasMessageContaining("positive");
  }

  private void awaitMemoryUsed(long bytes) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (client.usage()[0] != bytes && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(client.usage()[0]).isEqualTo(bytes);
  }

  @Test
  void handlesOfAnotherSessionAreNotFound() {
    Buffer mine = client.allocate(64);
    client.write(stream, mine, 0, ints(42));
    try (SmsliceClient other = fixture.connect("det")) {
      Stream theirs = other.createStream();
      other.launch(
          other.kernel(other.loadModule(AgentFixture.KERNELS), "fill_u32"),
          theirs,
          1,
          1,
          Arg.buffer(mine),
          Arg.i32(666),
          Arg.i32(1));
      assertThatThrownBy(() -> other.synchronize(theirs))
          .isInstanceOfSatisfying(
              SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.NOT_FOUND));
      assertThatThrownBy(() -> other.free(mine)).hasMessageContaining("no buffer");
      Stream secondOfMine = client.createStream(); // handle 2: the other session has only 1
      assertThatThrownBy(() -> other.synchronize(secondOfMine)).hasMessageContaining("no stream 2");
    }
    assertThat(read(mine, 1)).containsExactly(42);
  }

  @Test
  void wrongTokenOrClaimIsRefused() {
    assertThatThrownBy(() -> SmsliceClient.connect(fixture.socket("det"), "team/det", "guess"))
        .isInstanceOfSatisfying(
            SmsliceException.class, e -> assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED));
    String token = fixture.agent.issueToken("team", "det", "pod", "c");
    assertThatThrownBy(() -> SmsliceClient.connect(fixture.socket("det"), "team/other", token))
        .hasMessageContaining("wrong claim or token");
  }

  @Test
  void sessionLimitIsEnforcedAndSessionsEndWithTheirConnection() throws Exception {
    java.util.List<SmsliceClient> more = new java.util.ArrayList<>();
    for (int i = 1; i < 8; i++) {
      more.add(fixture.connect("det"));
    }
    assertThatThrownBy(() -> fixture.connect("det")).hasMessageContaining("maximum of 8");
    more.forEach(SmsliceClient::close);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (fixture.agent.runtime("team", "det").orElseThrow().sessions() > 1
        && System.nanoTime() < deadline) {
      Thread.sleep(1);
    }
    fixture.connect("det").close();
  }

  @Test
  void metricsCountLaunchesPerClaim() {
    Kernel empty = client.kernel(module, "empty");
    for (int i = 0; i < 5; i++) {
      client.launch(empty, stream, 1, 1);
    }
    client.synchronize(stream);
    String metrics = fixture.agent.renderMetrics();
    assertThat(metrics)
        .contains("smslice_agent_backend{backend=\"simulated\",simulated=\"true\"} 1")
        .contains("smslice_claim_launches_total{namespace=\"team\",claim=\"det\"")
        .contains("smslice_claim_launch_seconds_count{namespace=\"team\",claim=\"det\"")
        .contains("smslice_claim_sms{namespace=\"team\",claim=\"det\"");
    assertThat(fixture.agent.runtime("team", "det").orElseThrow().metrics().launches())
        .isEqualTo(5);
  }

  @Test
  void releasedClaimsEndTheirSessions() {
    fixture.agent.release("team", "det");
    assertThat(fixture.agent.endpoint("team", "det")).isEmpty();
    assertThatThrownBy(() -> client.synchronize(stream)).isInstanceOf(SmsliceException.class);
  }
}
