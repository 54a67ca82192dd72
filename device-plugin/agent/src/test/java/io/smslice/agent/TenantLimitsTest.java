package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Buffer;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything a tenant can create is bounded (module bytes by the claim's memory quota, streams,
 * events and graphs per session), and a graph keeps the buffers and modules it uses.
 */
class TenantLimitsTest {
  @TempDir Path directory;
  AgentFixture fixture;
  SmsliceClient client;

  @BeforeEach
  void start() {
    fixture = new AgentFixture(directory);
    fixture.serve("det", List.of(0, 1), 1 << 20);
    client = fixture.connect("det");
  }

  @AfterEach
  void stop() {
    client.close();
    fixture.close();
  }

  private static Consumer<SmsliceException> status(Status status) {
    return e -> assertThat(e.status()).isEqualTo(status);
  }

  /** A loadable PTX image of about {@code bytes} bytes (padded with a comment). */
  private static byte[] module(int bytes) {
    String ptx = ".visible .entry empty() { ret; }\n// ";
    return (ptx + "x".repeat(bytes - ptx.length())).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void moduleImagesCountAgainstTheClaimsMemoryQuota() {
    List<Module> loaded = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      loaded.add(client.loadModule(module(300 << 10)));
    }
    assertThat(client.usage()[0]).isEqualTo(3L * (300 << 10));
    assertThatThrownBy(() -> client.loadModule(module(300 << 10)))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.QUOTA_EXCEEDED))
        .hasMessageContaining("loading a module of 307200 bytes")
        .hasMessageContaining("memory quota of 1048576 bytes");
    assertThatThrownBy(() -> client.allocate(200 << 10)).hasMessageContaining("memory quota");
    client.unload(loaded.getFirst());
    assertThat(client.usage()[0]).isEqualTo(2L * (300 << 10));
    client.loadModule(module(300 << 10));
  }

  @Test
  void streamsEventsAndGraphsAreLimitedPerSession() {
    List<Stream> streams = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      streams.add(client.createStream());
    }
    assertThatThrownBy(client::createStream)
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.QUOTA_EXCEEDED))
        .hasMessageContaining("maximum of 256 streams");
    client.destroy(streams.removeLast());
    Stream stream = client.createStream();
    try (SmsliceClient other = fixture.connect("det")) {
      other.createStream(); // the limit is per session
    }

    for (int i = 0; i < 4096; i++) {
      client.createEvent();
    }
    assertThatThrownBy(client::createEvent).hasMessageContaining("maximum of 4096 events");

    for (int i = 0; i < 1024; i++) {
      client.beginCapture(stream);
      client.endCapture(stream);
    }
    assertThatThrownBy(() -> client.beginCapture(stream))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.QUOTA_EXCEEDED))
        .hasMessageContaining("maximum of 1024 graphs");
  }

  @Test
  void aGraphHoldsAtMostItsLimitOfOperations() {
    Stream stream = client.createStream();
    Buffer buffer = client.allocate(4);
    client.beginCapture(stream);
    for (int i = 0; i <= 10_000; i++) {
      client.fill(stream, buffer, 0, 4, (byte) 1);
    }
    client.endCapture(stream);
    assertThatThrownBy(() -> client.synchronize(stream))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.QUOTA_EXCEEDED))
        .hasMessageContaining("at most 10000 operations");
  }

  @Test
  void aGraphKeepsTheBuffersAndModulesItUses() {
    Stream stream = client.createStream();
    Module module = client.loadModule(AgentFixture.KERNELS);
    Kernel fill = client.kernel(module, "fill_u32");
    Buffer buffer = client.allocate(16);
    client.beginCapture(stream);
    client.launch(fill, stream, 1, 4, Arg.buffer(buffer), Arg.i32(3), Arg.i32(4));
    assertThatThrownBy(() -> client.free(buffer))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.UNSUPPORTED))
        .hasMessageContaining("used by the graph being captured");
    Graph graph = client.endCapture(stream);

    assertThatThrownBy(() -> client.free(buffer))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.UNSUPPORTED))
        .hasMessageContaining("buffer " + buffer.handle() + " is used by graph " + graph.handle())
        .hasMessageContaining("destroy the graph first");
    assertThatThrownBy(() -> client.unload(module)).hasMessageContaining("is used by graph");
    client.launchGraph(graph, stream);
    MemorySegment out = Arena.ofAuto().allocate(16);
    client.read(stream, buffer, 0, out);
    assertThat(out.toArray(ValueLayout.JAVA_INT)).containsOnly(3);

    client.destroy(graph);
    client.free(buffer);
    client.unload(module);
    assertThat(client.usage()[0]).isZero();
  }

  /**
   * Each graph keeps its own record of what it uses: the next capture on the same stream starts
   * afresh without touching the graph captured before.
   */
  @Test
  void aSecondCaptureOnTheSameStreamLeavesTheFirstGraphItsBuffers() {
    Stream stream = client.createStream();
    Module module = client.loadModule(AgentFixture.KERNELS);
    Kernel fill = client.kernel(module, "fill_u32");
    Buffer first = client.allocate(16);
    Buffer second = client.allocate(16);
    client.beginCapture(stream);
    client.launch(fill, stream, 1, 4, Arg.buffer(first), Arg.i32(1), Arg.i32(4));
    Graph one = client.endCapture(stream);
    client.beginCapture(stream);
    client.launch(fill, stream, 1, 4, Arg.buffer(second), Arg.i32(2), Arg.i32(4));
    Graph two = client.endCapture(stream);

    assertThatThrownBy(() -> client.free(first))
        .isInstanceOfSatisfying(SmsliceException.class, status(Status.UNSUPPORTED))
        .hasMessageContaining("buffer " + first.handle() + " is used by graph " + one.handle());
    assertThatThrownBy(() -> client.free(second))
        .hasMessageContaining("buffer " + second.handle() + " is used by graph " + two.handle());
    client.destroy(two);
    client.free(second);
    assertThatThrownBy(() -> client.free(first)).hasMessageContaining("is used by graph");
    client.launchGraph(one, stream);
    MemorySegment out = Arena.ofAuto().allocate(16);
    client.read(stream, first, 0, out);
    assertThat(out.toArray(ValueLayout.JAVA_INT)).containsOnly(1);
    client.destroy(one);
    client.free(first);
  }
}
