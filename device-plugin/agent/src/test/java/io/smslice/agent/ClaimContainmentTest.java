package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.client.SmsliceException;
import io.smslice.protocol.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whatever one claim's executor runs into (an Error, a kernel that never ends), its tenants get
 * answers, it can be released, and other claims, endpoint lookups and metrics are not held up. The
 * time limits here only stop a hung test; the assertions are about what answered while the trouble
 * was still there.
 */
class ClaimContainmentTest {
  private static final Duration HUNG = Duration.ofSeconds(20);

  @TempDir Path directory;
  final TroubledBackend troubled = new TroubledBackend(0);
  AgentFixture fixture;

  @BeforeEach
  void start() {
    fixture = new AgentFixture(directory, troubled.backend());
    fixture.serve("troubled", List.of(0), 1 << 20);
    fixture.serve("calm", List.of(1), 1 << 20);
  }

  @AfterEach
  void stop() {
    troubled.heal();
    troubled.endKernel();
    fixture.close();
  }

  /** The calm claim answers: lookup, metrics, and a tenant's round trip with real bytes. */
  private void calmClaimServes() {
    assertThat(fixture.agent.endpoint("team", "calm")).isPresent();
    assertThat(fixture.agent.renderMetrics()).contains("claim=\"calm\"");
    try (SmsliceClient calm = fixture.connect("calm")) {
      Stream stream = calm.createStream();
      Buffer buffer = calm.allocate(4);
      calm.write(stream, buffer, 0, Arena.ofAuto().allocateFrom(ValueLayout.JAVA_INT, 3));
      MemorySegment out = Arena.ofAuto().allocate(4);
      calm.read(stream, buffer, 0, out);
      assertThat(out.get(ValueLayout.JAVA_INT, 0)).isEqualTo(3);
    }
  }

  @Test
  void anErrorInARequestIsAnsweredAndOnlyFailsThatRequest() {
    SmsliceClient client = fixture.connect("troubled");
    troubled.failIn("createStream", () -> new AssertionError("a bug in the agent"));
    assertTimeoutPreemptively(
        HUNG,
        () ->
            assertThatThrownBy(client::createStream)
                .isInstanceOfSatisfying(
                    SmsliceException.class,
                    e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE))
                .hasMessageContaining("internal error")
                .hasMessageContaining("a bug in the agent"));
    troubled.heal();
    Stream stream = client.createStream();
    Buffer buffer = client.allocate(4);
    troubled.failIn("fill", () -> new AssertionError("a bug in a ring record"));
    client.fill(stream, buffer, 0, 4, (byte) 1);
    assertTimeoutPreemptively(
        HUNG,
        () ->
            assertThatThrownBy(() -> client.synchronize(stream))
                .hasMessageContaining("a bug in a ring record"));
    troubled.heal();
    client.fill(stream, buffer, 0, 4, (byte) 2);
    client.synchronize(stream);
    assertThat(fixture.agent.renderMetrics())
        .contains(
            "smslice_claim_failed{namespace=\"team\",claim=\"troubled\",gpu=\""
                + fixture.gpu
                + "\",mode=\"in-agent\"} 0");
    client.close();
  }

  @Test
  void anExhaustedHeapFailsTheClaimVisiblyAndItCanBeReleasedAndServedAgain() {
    SmsliceClient client = fixture.connect("troubled");
    SmsliceClient other = fixture.connect("troubled");
    troubled.failIn("createEvent", () -> new OutOfMemoryError("Java heap space (simulated)"));
    assertTimeoutPreemptively(
        HUNG,
        () ->
            assertThatThrownBy(client::createEvent)
                .isInstanceOfSatisfying(
                    SmsliceException.class,
                    e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE))
                .hasMessageContaining("the claim failed")
                .hasMessageContaining("OutOfMemoryError"));
    troubled.heal();
    assertTimeoutPreemptively(
        HUNG,
        () -> {
          assertThatThrownBy(other::createStream).isInstanceOf(SmsliceException.class);
          assertThatThrownBy(() -> fixture.connect("troubled"))
              .hasMessageContaining("the claim failed inside the agent");
          assertThat(fixture.agent.renderMetrics())
              .contains(
                  "smslice_claim_failed{namespace=\"team\",claim=\"troubled\",gpu=\""
                      + fixture.gpu
                      + "\",mode=\"in-agent\"} 1");
          calmClaimServes();
          fixture.agent.release("team", "troubled");
        });
    client.close();
    other.close();
    fixture.serve("troubled", List.of(0), 1 << 20);
    try (SmsliceClient fresh = fixture.connect("troubled")) {
      assertThat(fresh.createEvent().handle()).isPositive();
    }
  }

  @Test
  void aClaimStuckInAKernelIsReleasedWithoutHoldingUpOthers() throws Exception {
    SmsliceClient stuck = fixture.connect("troubled");
    SmsliceClient queued = fixture.connect("troubled");
    Stream stream = stuck.createStream();
    troubled.hangIn("synchronize");
    Thread.ofPlatform().daemon().start(() -> stuck.synchronize(stream));
    assertThat(troubled.hung.await(HUNG.toSeconds(), TimeUnit.SECONDS)).isTrue();
    // The executor is now inside a synchronization that does not end.
    CompletableFuture<Object> behind = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try {
                behind.complete(queued.createStream());
              } catch (RuntimeException e) {
                behind.completeExceptionally(e);
              }
            });
    Thread release =
        Thread.ofPlatform().daemon().start(() -> fixture.agent.release("team", "troubled"));
    awaitBlockedOrDone(release);

    assertTimeoutPreemptively(HUNG, this::calmClaimServes);
    release.join(HUNG);
    assertThat(release.isAlive()).as("release returned while the kernel still runs").isFalse();
    assertThat(troubled.hung.getCount()).isZero();
    assertThat(fixture.agent.endpoint("team", "troubled")).isEmpty();
    // Answered (the release closes the socket, so the tenant sees its session end), not hung.
    assertThatThrownBy(() -> behind.get(HUNG.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(SmsliceException.class);
    assertThat(troubled.contextsClosed.get()).isZero();

    troubled.endKernel();
    long deadline = System.nanoTime() + HUNG.toNanos();
    while (troubled.contextsClosed.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(troubled.contextsClosed.get())
        .as("the executor tore the claim down once the kernel ended")
        .isEqualTo(1);
    stuck.close();
    queued.close();
  }

  @Test
  void releaseDropsQueuedRecordsInsteadOfRunningThem() throws Exception {
    SmsliceClient holder = fixture.connect("troubled");
    SmsliceClient busy = fixture.connect("troubled");
    Stream held = holder.createStream();
    Stream stream = busy.createStream();
    Buffer buffer = busy.allocate(64 << 10);
    troubled.hangIn("synchronize");
    Thread.ofPlatform().daemon().start(() -> holder.destroy(held));
    assertThat(troubled.hung.await(HUNG.toSeconds(), TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 1000; i++) {
      busy.fill(stream, buffer, 0, 64 << 10, (byte) i);
    }
    troubled.streamCalls.clear();
    Thread release =
        Thread.ofPlatform().daemon().start(() -> fixture.agent.release("team", "troubled"));
    release.join(HUNG);
    assertThat(release.isAlive()).isFalse();
    troubled.endKernel();
    long deadline = System.nanoTime() + HUNG.toNanos();
    while (troubled.contextsClosed.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(troubled.contextsClosed.get()).isEqualTo(1);
    assertThat(troubled.streamCalls).doesNotContain("fill");
    holder.close();
    busy.close();
  }

  /** Waits until the thread is parked or sleeping (inside the release) or has finished. */
  private static void awaitBlockedOrDone(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + HUNG.toNanos();
    while (System.nanoTime() < deadline) {
      Thread.State state = thread.getState();
      if (state == Thread.State.WAITING
          || state == Thread.State.TIMED_WAITING
          || state == Thread.State.TERMINATED) {
        return;
      }
      Thread.sleep(1);
    }
  }
}
