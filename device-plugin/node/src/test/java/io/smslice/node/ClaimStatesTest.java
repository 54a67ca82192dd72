package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.RunMode;
import io.smslice.gpu.MpsServers;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.testing.NodeFixture;
import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the node publishes per claim carries the unmodified processes attached to it: the operator
 * holds live resizes on that count, so a count stuck at zero would let it move SMs under them.
 */
class ClaimStatesTest {
  @TempDir Path tmp;

  @Test
  void anAttachedProcessIsPublishedAndGoneWhenItsConnectionCloses() throws Exception {
    String gpu = NodeFixture.GREEN.uuid();
    MpsServers mps =
        new MpsServers() {
          @Override
          public Path pipeDirectory(String gpuUuid) {
            return tmp.resolve("mps");
          }

          @Override
          public void restart(String gpuUuid) {}
        };
    AgentOptions options =
        new AgentOptions(
            "node-a",
            tmp.resolve("run"),
            tmp.resolve("state"),
            RunMode.WORKER,
            1 << 20,
            8,
            1 << 20);
    try (Agent agent =
        Agent.start(options, null, new SimulatedBackend(List.of(NodeFixture.GREEN)), mps)) {
      agent.serve(new BoundClaim("ml", "detector", gpu, List.of(0, 1), 1 << 20));
      Path socket = agent.endpoint("ml", "detector").orElseThrow().socket();
      String token = agent.issueToken("ml", "detector", "pod-1", "main");

      try (SocketChannel attached = attach(socket, "ml/detector", token)) {
        List<ClaimState> states = awaitProcesses(agent, 1);
        assertThat(states).hasSize(1);
        assertThat(states.getFirst().name()).isEqualTo("detector");
        assertThat(states.getFirst().processes().getFirst().command()).isEqualTo("python3");
      }
      assertThat(awaitProcesses(agent, 0).getFirst().processes()).isEmpty();
    }
  }

  private static List<ClaimState> awaitProcesses(Agent agent, int count) throws Exception {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      List<ClaimState> states = NodeWithAgent.claimStates(agent);
      if (!states.isEmpty() && states.getFirst().processes().size() == count) {
        return states;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected " + count + " attached process(es), saw " + states);
      }
      Thread.sleep(20);
    }
  }

  /** An interposer's ATTACH (docs/tenant-protocol.md); the open connection is the registration. */
  private static SocketChannel attach(Path socket, String claim, String token) throws Exception {
    ByteBuffer payload = ByteBuffer.allocate(4096);
    Frames.putString(payload, claim);
    Frames.putString(payload, token);
    payload.putInt((int) ProcessHandle.current().pid());
    Frames.putString(payload, Files.readAllLines(Path.of("/proc/self/cgroup")).getFirst());
    Frames.putString(payload, "python3");
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket));
    Frames.write(channel, Op.ATTACH.code, payload.flip());
    ByteBuffer answer = Frames.read(channel, 1 << 16);
    assertThat(answer.get()).as("ATTACH status").isEqualTo(Status.OK.code);
    return channel;
  }
}
