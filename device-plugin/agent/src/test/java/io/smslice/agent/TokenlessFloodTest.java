package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import java.lang.management.ManagementFactory;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, finding 1, measured: 1,000 peers without a token, each declaring a large first frame
 * and sending little, cost the agent little heap, and another claim's tenants keep their latency.
 */
class TokenlessFloodTest {
  static final int PEERS = 1000;

  @TempDir Path directory;

  @Test
  void tokenlessPeersWithLargeDeclaredFramesCostLittleAndOtherClaimsKeepServing() throws Exception {
    try (AgentFixture fixture = new AgentFixture(directory)) {
      fixture.serve("target", List.of(0), 1 << 20);
      fixture.serve("other", List.of(1), 1 << 20);
      String token = fixture.agent.issueToken("team", "other", "pod", "main");
      helloInfo(fixture.socket("other"), token, 200); // warm-up
      long[] alone = helloInfo(fixture.socket("other"), token, 200);
      long before = heapAfterGc();

      List<SocketChannel> peers = new ArrayList<>();
      AtomicBoolean flooding = new AtomicBoolean(true);
      Thread flood =
          Thread.ofPlatform()
              .start(
                  () -> {
                    int declared = 64 << 20;
                    for (int i = 0; i < PEERS; i++) {
                      try {
                        SocketChannel peer = SocketChannel.open(StandardProtocolFamily.UNIX);
                        peer.connect(UnixDomainSocketAddress.of(fixture.socket("target")));
                        peer.write(
                            ByteBuffer.allocate(64).putInt(declared).put(Op.HELLO.code).flip());
                        peers.add(peer);
                        declared = Math.max(16 << 10, declared / 2);
                      } catch (Exception e) {
                        // A refused peer is what the caps are for.
                      }
                    }
                    flooding.set(false);
                  });
      List<Long> during = new ArrayList<>();
      while (flooding.get()) {
        for (long nanos : helloInfo(fixture.socket("other"), token, 10)) {
          during.add(nanos);
        }
      }
      flood.join();
      // The refused peers stay connected; measure on while the agent holds what it admitted.
      for (long nanos : helloInfo(fixture.socket("other"), token, 200)) {
        during.add(nanos);
      }
      long after = heapAfterGc();
      long[] sorted = during.stream().mapToLong(Long::longValue).sorted().toArray();
      double p99 = sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6;
      double heapMiB = (after - before) / (double) (1 << 20);
      System.out.printf(
          "[flood] %d tokenless peers connected (%d still open on their side); agent heap +%.1f"
              + " MiB; other claim's connect+HELLO+INFO p99 %.2f ms over %d rounds during the"
              + " flood, %.2f ms over 200 rounds alone%n",
          PEERS, peers.size(), heapMiB, p99, sorted.length, percentile(alone, 0.99) / 1e6);
      for (SocketChannel peer : peers) {
        peer.close();
      }

      assertThat(heapMiB).isLessThan(32);
      // The other claim answered every round during the flood (helloInfo checks each answer); its
      // latency is printed above, not judged: timings on a shared 2-core build machine are not a
      // benchmark.
      assertThat(during).hasSizeGreaterThan(200);
    }
  }

  /** Connect, HELLO, INFO, close: the nanoseconds of each of {@code count} rounds. */
  private static long[] helloInfo(Path socket, String token, int count) throws Exception {
    long[] nanos = new long[count];
    for (int i = 0; i < count; i++) {
      long start = System.nanoTime();
      try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
        channel.connect(UnixDomainSocketAddress.of(socket));
        ByteBuffer hello = ByteBuffer.allocate(256);
        Frames.putString(hello, "team/other");
        Frames.putString(hello, token);
        Frames.write(channel, Op.HELLO.code, hello.flip());
        assertThat(Frames.read(channel, 1 << 16).get()).isZero();
        Frames.write(channel, Op.INFO.code, ByteBuffer.allocate(0));
        assertThat(Frames.read(channel, 1 << 16).get()).isZero();
      }
      nanos[i] = System.nanoTime() - start;
    }
    return nanos;
  }

  private static double percentile(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(sorted.length * p) - 1];
  }

  private static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
