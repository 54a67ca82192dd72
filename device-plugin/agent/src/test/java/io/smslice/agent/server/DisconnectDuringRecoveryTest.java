package io.smslice.agent.server;

import static io.smslice.agent.server.HostileConnectionsTest.awaitTrue;
import static io.smslice.agent.server.ServerFixture.TOKEN;
import static io.smslice.agent.server.ServerFixture.answer;
import static io.smslice.agent.server.ServerFixture.hello;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.Arg;
import io.smslice.client.DeviceLostException;
import io.smslice.client.Handles.Buffer;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import io.smslice.protocol.Status;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 11, finding 10: a tenant gone while its claim's GPU context is being recovered. */
class DisconnectDuringRecoveryTest {
  @TempDir Path root;

  @Test
  void aSessionClosedWhileTheContextIsLostFreesItsMapping() throws Exception {
    AtomicInteger faults = new AtomicInteger();
    // Recovery that has not got to this claim yet: the runtime stays "not serving".
    ClaimRuntime.FaultListener pending =
        runtime -> {
          faults.incrementAndGet();
          return true;
        };
    try (ServerFixture server =
        new ServerFixture(
            root,
            "a",
            8,
            HostileConnectionsTest.LIMITS,
            pending,
            TOKEN::equals,
            UnaryOperator.identity())) {
      // A session that never sends MAPPED keeps its file: the file shows whether it was freed.
      SocketChannel bystander = server.connect();
      hello(bystander, "team/a", TOKEN);
      assertThat(answer(bystander).status()).isEqualTo(Status.OK);
      assertThat(server.sessionFiles()).isEqualTo(1);

      SmsliceClient culprit = SmsliceClient.connect(server.socket.path(), "team/a", TOKEN);
      Stream stream = culprit.createStream();
      Kernel load =
          culprit.kernel(
              culprit.loadModule(Files.readAllBytes(Path.of("verify/kernels.ptx"))), "load_u32");
      Buffer out = culprit.allocate(4);
      culprit.launch(load, stream, 1, 1, Arg.i64(0x10), Arg.buffer(out));
      // Its wait ends only when recovery ends its session (below); the fault is seen before.
      CompletableFuture<Void> waiting =
          CompletableFuture.runAsync(() -> culprit.synchronize(stream));
      awaitTrue(() -> faults.get() == 1);

      bystander.close();

      awaitTrue(() -> server.runtime.sessions() == 1);
      awaitTrue(
          () -> {
            try {
              return server.sessionFiles() == 0;
            } catch (java.io.IOException e) {
              return false;
            }
          });
      server.runtime.loseDevice("test").get();
      assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(DeviceLostException.class);
      culprit.close();
      assertThat(server.runtime.sessions()).isZero();
    }
  }
}
