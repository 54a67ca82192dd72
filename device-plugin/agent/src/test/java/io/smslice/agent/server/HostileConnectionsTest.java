package io.smslice.agent.server;

import static io.smslice.agent.server.ServerFixture.TOKEN;
import static io.smslice.agent.server.ServerFixture.answer;
import static io.smslice.agent.server.ServerFixture.closedByAgent;
import static io.smslice.agent.server.ServerFixture.hello;
import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.Frames;
import io.smslice.protocol.Op;
import io.smslice.protocol.Status;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peers that never authenticate, vanish mid-handshake, idle, or hit a failing accept: each is
 * bounded or cleaned up, and the claim keeps serving (issue 11, findings 1, 2, 6 and 11).
 */
class HostileConnectionsTest {
  static final ConnectionLimits LIMITS =
      new ConnectionLimits(4096, 4, Duration.ofMillis(300), 8, Duration.ZERO);

  @TempDir Path root;
  final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  private ServerFixture server(String name, ConnectionLimits limits) throws Exception {
    ServerFixture server = new ServerFixture(root, name, limits);
    open.add(server);
    return server;
  }

  private SocketChannel connect(ServerFixture server) throws IOException {
    SocketChannel channel = server.connect();
    open.add(channel);
    return channel;
  }

  private static void assertHelloWorks(ServerFixture server) throws Exception {
    try (SocketChannel channel = server.connect()) {
      hello(channel, claimOf(server), TOKEN);
      ServerFixture.Answer answer = answer(channel);
      assertThat(answer.status()).as(answer.message()).isEqualTo(Status.OK);
    }
  }

  private static boolean helloServed(ServerFixture server) {
    try (SocketChannel channel = server.connect()) {
      hello(channel, claimOf(server), TOKEN);
      return answer(channel).status() == Status.OK;
    } catch (Exception e) {
      return false;
    }
  }

  private static String claimOf(ServerFixture server) {
    return "team/" + server.directory.getFileName();
  }

  @Test
  void theFirstFrameIsReadAgainstItsOwnSmallLimit() throws Exception {
    ServerFixture server = server("a", LIMITS);
    SocketChannel channel = connect(server);
    // Within the session limit (1 MiB) but far over what HELLO needs; nothing follows the header.
    channel.write(ByteBuffer.allocate(5).putInt(1 << 20).put(Op.HELLO.code).flip());

    ServerFixture.Answer answer = answer(channel);

    assertThat(answer.status()).isEqualTo(Status.TOO_LARGE);
    assertThat(answer.message()).contains("limit is 4096");
  }

  @Test
  void connectionsWaitingForHelloAreCappedPerClaim() throws Exception {
    ServerFixture a = server("a", LIMITS.withHelloDeadline(Duration.ofSeconds(30)));
    ServerFixture b = server("b", LIMITS);
    for (int i = 0; i < 4; i++) {
      connect(a).write(ByteBuffer.allocate(2).put((byte) 0).put((byte) 0).flip());
    }

    ServerFixture.Answer refused = answer(connect(a));

    assertThat(refused.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(refused.message()).contains("4 connections waiting to send HELLO");
    assertHelloWorks(b); // another claim is untouched
  }

  @Test
  void aConnectionWithoutHelloIsClosedAtTheDeadline() throws Exception {
    ServerFixture server = server("a", LIMITS);
    SocketChannel silent = connect(server);
    SocketChannel partial = connect(server);
    partial.write(ByteBuffer.allocate(2).putShort((short) 0).flip());

    ServerFixture.Answer answer = answer(silent);

    assertThat(answer.status()).isEqualTo(Status.UNAUTHORIZED);
    assertThat(answer.message()).contains("no HELLO or ATTACH within 300 ms");
    assertThat(closedByAgent(silent)).isTrue();
    assertThat(closedByAgent(partial)).isTrue();
    awaitTrue(() -> server.socket.connectionCount() == 0);
    assertHelloWorks(server);
  }

  @Test
  void failedAcceptsAreRetriedNotTheEndOfTheSocket() throws Exception {
    AtomicInteger failures = new AtomicInteger();
    UnaryOperator<ClaimSocket.Acceptor> flaky =
        real ->
            () -> {
              int n = failures.incrementAndGet();
              if (n == 1) {
                throw new IOException("Too many open files");
              }
              if (n == 2) {
                throw new OutOfMemoryError("Java heap space");
              }
              return real.accept();
            };
    ServerFixture server = new ServerFixture(root, "a", 8, LIMITS, r -> true, TOKEN::equals, flaky);
    open.add(server);

    assertHelloWorks(server);
    assertThat(server.socket.acceptFailures()).isEqualTo(2);
  }

  @Test
  void anErrorServingOneConnectionEndsOnlyThatConnection() throws Exception {
    TokenCheck exploding =
        token -> {
          if (token.equals("boom")) {
            throw new OutOfMemoryError("Java heap space");
          }
          return token.equals(TOKEN);
        };
    ServerFixture server =
        new ServerFixture(root, "a", 8, LIMITS, r -> true, exploding, UnaryOperator.identity());
    open.add(server);
    SocketChannel channel = connect(server);
    hello(channel, "team/a", "boom");

    assertThat(closedByAgent(channel)).isTrue();
    assertHelloWorks(server);
  }

  @Test
  void helloThenAnImmediateCloseLeavesNoSessionBehind() throws Exception {
    ServerFixture server =
        server("a", new ConnectionLimits(4096, 64, Duration.ofSeconds(5), 8, Duration.ZERO));
    for (int i = 0; i < 20; i++) {
      try (SocketChannel channel = server.connect()) {
        hello(channel, "team/a", TOKEN);
      }
    }

    // The agent handles those connections after they closed, at its own pace: a session may be
    // opened and ended later still. Once it is done a new HELLO is served; a leaked session never
    // ends, so after 8 of them every HELLO is refused.
    awaitTrue(() -> helloServed(server));
    awaitTrue(() -> server.socket.connectionCount() == 0);
    awaitTrue(() -> server.runtime.sessions() == 0);
    awaitTrue(() -> sessionFiles(server) == 0);
  }

  @Test
  void idleSessionsAreClosedButBusyOnesAndAttachedProcessesStay() throws Exception {
    ServerFixture server = server("a", LIMITS.withSessionIdleTimeout(Duration.ofMillis(300)));
    SocketChannel attached = connect(server);
    Frames.write(attached, Op.ATTACH.code, attachPayload());
    assertThat(answer(attached).status()).isEqualTo(Status.OK);
    SocketChannel busy = connect(server);
    hello(busy, "team/a", TOKEN);
    assertThat(answer(busy).status()).isEqualTo(Status.OK);
    SocketChannel idle = connect(server);
    hello(idle, "team/a", TOKEN);
    assertThat(answer(idle).status()).isEqualTo(Status.OK);

    long end = System.nanoTime() + 1_200_000_000L;
    while (System.nanoTime() < end) {
      Frames.write(busy, Op.INFO.code, ByteBuffer.allocate(0));
      assertThat(answer(busy).status()).isEqualTo(Status.OK);
      Thread.sleep(50);
    }

    assertThat(closedByAgent(idle)).isTrue();
    Frames.write(busy, Op.INFO.code, ByteBuffer.allocate(0));
    assertThat(answer(busy).status()).isEqualTo(Status.OK);
    attached.configureBlocking(false);
    assertThat(attached.read(ByteBuffer.allocate(1))).isZero(); // still open, nothing sent
    assertThat(server.socket.connectionCount()).isEqualTo(2);
  }

  private static ByteBuffer attachPayload() {
    ByteBuffer payload = ByteBuffer.allocate(512);
    Frames.putString(payload, "team/a");
    Frames.putString(payload, TOKEN);
    payload.putInt(4242);
    Frames.putString(payload, "0::/");
    Frames.putString(payload, "python");
    return payload.flip();
  }

  @Test
  void weakRequestsGetErrorsThatSayWhatIsWrong() throws Exception {
    ServerFixture server = server("a", LIMITS);
    SocketChannel first = connect(server);
    first.write(ByteBuffer.allocate(4).putInt(0).flip());
    ServerFixture.Answer empty = answer(first);
    assertThat(empty.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(empty.message()).contains("empty frame");

    SocketChannel session = connect(server);
    hello(session, "team/a", TOKEN);
    assertThat(answer(session).status()).isEqualTo(Status.OK);
    Frames.write(session, (byte) 99, ByteBuffer.allocate(0));
    ServerFixture.Answer unknown = answer(session);
    assertThat(unknown.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(unknown.message()).contains("unknown op code 99");
    Frames.write(session, Op.ALLOC.code, ByteBuffer.allocate(3));
    ServerFixture.Answer truncated = answer(session);
    assertThat(truncated.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(truncated.message())
        .contains("malformed ALLOC request")
        .contains("truncated")
        .doesNotContain("Exception");
    Frames.write(session, Op.HELLO.code, ByteBuffer.allocate(0));
    assertThat(answer(session).message()).contains("HELLO is valid only as the first request");
    session.write(ByteBuffer.allocate(4).putInt(0).flip());
    assertThat(answer(session).message()).contains("empty frame");
  }

  private static long sessionFiles(ServerFixture server) {
    try {
      return server.sessionFiles();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
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
