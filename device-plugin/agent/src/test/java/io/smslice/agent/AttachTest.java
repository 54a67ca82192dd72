package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.server.ClaimRuntime;
import io.smslice.agent.server.ClaimServer;
import io.smslice.agent.server.ConnectionLimits;
import io.smslice.agent.transparent.AttachedProcess;
import io.smslice.client.SmsliceClient;
import io.smslice.gpu.MpsServers;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Status;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ATTACH over a real claim socket: answer, refusals, registration for the connection's life. */
class AttachTest {
  private static final ClaimRuntime.FaultListener NO_FAULTS = runtime -> true;

  @TempDir Path directory;
  final SimulatedBackend backend = SimulatedBackend.h200(1);
  final String gpu = backend.devices().getFirst().uuid();
  final Map<String, TokenStore> tokenStores = new HashMap<>();
  final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  private ClaimServer server(String name, List<Integer> groups, int maxAttached, boolean underMps)
      throws Exception {
    TokenStore store = new TokenStore(directory.resolve("state"));
    ClaimServer server =
        ClaimServer.start(
            new ClaimServer.Spec("team", name, gpu, groups, 1 << 20, directory.resolve(name)),
            backend,
            new ClaimServer.Settings(
                1 << 20,
                2,
                1 << 20,
                ConnectionLimits.DEFAULTS.withMaxAttached(maxAttached),
                underMps),
            t -> store.accepts("team", name, t),
            NO_FAULTS);
    open.add(server);
    tokenStores.put(name, store);
    return server;
  }

  private String token(String name) {
    return tokenStores.get(name).issue("team", name, "pod-1", "main");
  }

  private RawAttach attach(ClaimServer server, String claim, String token) throws Exception {
    RawAttach attached = RawAttach.self(server.socketPath(), claim, token);
    open.add(attached);
    return attached;
  }

  @Test
  void answersTheClaimsSliceAndRegistersTheProcessUntilItCloses() throws Exception {
    ClaimServer server = server("det", List.of(0, 1), 8, true);
    RawAttach attached = attach(server, "team/det", token("det"));

    assertThat(attached.status).isEqualTo(Status.OK);
    assertThat(attached.slice()).isEqualTo(new RawAttach.Slice(gpu, 8, 16, List.of(0, 1), 16));
    List<AttachedProcess> processes = server.attachedProcesses();
    assertThat(processes).hasSize(1);
    AttachedProcess self = processes.getFirst();
    assertThat(self.pid()).isEqualTo(ProcessHandle.current().pid());
    // The test shares its PID namespace with the "agent": the host pid is its own.
    assertThat(self.hostPid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(self.command()).isEqualTo("java");
    assertThat(self.attachedAt()).isNotNull();

    attached.close();
    awaitTrue(() -> server.attachedProcesses().isEmpty());
  }

  @Test
  void answersTheGroupsTheClaimHasNowAfterAResize() throws Exception {
    ClaimServer server = server("det", List.of(0, 1), 8, true);
    server.runtime().resize(List.of(2, 3, 15), 1 << 20).get();

    RawAttach attached = attach(server, "team/det", token("det"));

    assertThat(attached.slice()).isEqualTo(new RawAttach.Slice(gpu, 8, 16, List.of(2, 3, 15), 28));
  }

  @Test
  void refusesAWrongTokenAndAnotherClaimsToken() throws Exception {
    ClaimServer a = server("a", List.of(0), 8, true);
    server("b", List.of(1), 8, true);
    String tokenOfB = token("b");

    RawAttach wrong = attach(a, "team/a", "00".repeat(32));
    RawAttach foreign = attach(a, "team/a", tokenOfB);
    RawAttach misnamed = attach(a, "team/b", tokenOfB);

    for (RawAttach refused : List.of(wrong, foreign, misnamed)) {
      assertThat(refused.status).isEqualTo(Status.UNAUTHORIZED);
      assertThat(refused.message()).contains("wrong claim or token for team/a");
      assertThat(refused.channel.read(ByteBuffer.allocate(1))).isEqualTo(-1);
    }
    assertThat(a.attachedProcesses()).isEmpty();
  }

  @Test
  void refusesMalformedAttachWithTheReason() throws Exception {
    ClaimServer server = server("det", List.of(0), 8, true);
    String token = token("det");
    ByteBuffer truncated = ByteBuffer.allocate(256);
    Frames.putString(truncated, "team/det");
    Frames.putString(truncated, token);
    truncated.put((byte) 1).flip();
    ByteBuffer longCgroup = RawAttach.payload("team/det", token, 7, "0::/" + "x".repeat(2000), "j");
    ByteBuffer trailing =
        ByteBuffer.allocate(600).put(RawAttach.payload("team/det", token, 7, "0::/", "j"));
    trailing.putInt(1).flip();

    RawAttach a = open(server, truncated);
    RawAttach b = open(server, longCgroup);
    RawAttach c = open(server, trailing);

    assertThat(a.status).isEqualTo(Status.BAD_REQUEST);
    assertThat(a.message()).contains("malformed ATTACH").contains("ends early");
    assertThat(b.status).isEqualTo(Status.BAD_REQUEST);
    assertThat(b.message()).contains("cgroup of 2004 bytes; at most 1024");
    assertThat(c.status).isEqualTo(Status.BAD_REQUEST);
    assertThat(c.message()).contains("4 trailing bytes");
    assertThat(server.attachedProcesses()).isEmpty();
  }

  private RawAttach open(ClaimServer server, ByteBuffer payload) throws Exception {
    RawAttach attached = RawAttach.open(server.socketPath(), payload);
    open.add(attached);
    return attached;
  }

  @Test
  void capsAttachedProcessesApartFromSessions() throws Exception {
    ClaimServer server = server("det", List.of(0), 3, true);
    String token = token("det");
    List<RawAttach> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(attach(server, "team/det", token));
    }
    assertThat(held).allMatch(a -> a.status == Status.OK);

    RawAttach over = attach(server, "team/det", token);
    assertThat(over.status).isEqualTo(Status.UNAVAILABLE);
    assertThat(over.message()).contains("maximum of 3 attached processes");
    // Attached processes do not take the claim's sessions (2 here).
    try (SmsliceClient one = SmsliceClient.connect(server.socketPath(), "team/det", token);
        SmsliceClient two = SmsliceClient.connect(server.socketPath(), "team/det", token)) {
      assertThat(one.info().sms()).isEqualTo(8);
      assertThat(two.info().sms()).isEqualTo(8);
    }

    held.getFirst().close();
    awaitTrue(() -> server.attachedProcesses().size() == 2);
    assertThat(attach(server, "team/det", token).status).isEqualTo(Status.OK);
  }

  @Test
  void releasingTheClaimClosesItsRegistrations() throws Exception {
    ClaimServer server = server("det", List.of(0), 8, true);
    RawAttach attached = attach(server, "team/det", token("det"));

    server.close();

    assertThat(attached.channel.read(ByteBuffer.allocate(1))).isEqualTo(-1);
    awaitTrue(() -> server.attachedProcesses().isEmpty());
  }

  @Test
  void inAgentModeRefusesUnmodifiedProgramsAndSaysWhy() throws Exception {
    try (AgentFixture fixture = new AgentFixture(directory)) {
      fixture.serve("det", List.of(0), 1 << 20);
      String token = fixture.agent.issueToken("team", "det", "pod-1", "main");

      try (RawAttach refused = RawAttach.self(fixture.socket("det"), "team/det", token)) {
        assertThat(refused.status).isEqualTo(Status.UNAVAILABLE);
        assertThat(refused.message())
            .contains("claim team/det")
            .contains("no MPS server")
            .contains("time-sliced");
      }
      assertThat(fixture.agent.transparentProcesses("team/det")).isEmpty();
    }
  }

  @Test
  void workerModePassesTheAttachedProcessesToTheAgent() throws Exception {
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return directory.resolve("mps");
          }

          @Override
          public void restart(String gpuUuid) {}
        };
    AgentOptions options =
        new AgentOptions(
            "node-a",
            directory.resolve("run"),
            directory.resolve("state"),
            RunMode.WORKER,
            1 << 20,
            8,
            1 << 20);
    try (Agent agent = Agent.start(options, null, backend, mps)) {
      agent.serve(new BoundClaim("team", "w", gpu, List.of(4, 5), 1 << 20));
      Path socket = agent.endpoint("team", "w").orElseThrow().socket();
      String token = agent.issueToken("team", "w", "pod-1", "main");

      try (RawAttach attached = RawAttach.self(socket, "team/w", token)) {
        assertThat(attached.status).isEqualTo(Status.OK);
        assertThat(attached.slice().groups()).containsExactly(4, 5);
        List<AttachedProcess> seen = agent.transparentProcesses("team/w");
        assertThat(seen).hasSize(1);
        assertThat(seen.getFirst().pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(seen.getFirst().command()).isEqualTo("java");
      }
      awaitTrue(() -> agent.transparentProcesses("team/w").isEmpty());
    }
  }

  static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }
}
