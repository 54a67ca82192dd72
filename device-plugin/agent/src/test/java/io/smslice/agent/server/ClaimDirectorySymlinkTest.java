package io.smslice.agent.server;

import static io.smslice.agent.server.ServerFixture.answer;
import static io.smslice.agent.server.ServerFixture.hello;
import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.client.SmsliceClient;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.protocol.Status;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, finding 9: a tenant can write in its claim directory and plant symlinks there; the
 * agent must never follow them out of it.
 */
class ClaimDirectorySymlinkTest {
  @TempDir Path root;
  final SimulatedBackend backend = SimulatedBackend.h200(1);
  Path claim;
  Path outsideDirectory;
  Path outsideFile;

  @BeforeEach
  void plantTargets() throws Exception {
    claim = Files.createDirectories(root.resolve("run/claims/team/det"));
    outsideDirectory = Files.createDirectories(root.resolve("etc"));
    Files.setPosixFilePermissions(outsideDirectory, PosixFilePermissions.fromString("rwx------"));
    outsideFile = Files.writeString(root.resolve("secret"), "keep");
    Files.setPosixFilePermissions(outsideFile, PosixFilePermissions.fromString("rw-------"));
  }

  private ClaimServer start() throws Exception {
    return ClaimServer.start(
        new ClaimServer.Spec(
            "team", "det", backend.devices().getFirst().uuid(), List.of(0), 1 << 20, claim),
        backend,
        new ClaimServer.Settings(1 << 20, 8, 1 << 20),
        "token"::equals,
        runtime -> true);
  }

  private void assertOutsideUntouched() throws Exception {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outsideDirectory)))
        .isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(outsideFile)))
        .isEqualTo("rw-------");
    assertThat(Files.readString(outsideFile)).isEqualTo("keep");
    try (var files = Files.list(outsideDirectory)) {
      assertThat(files.toList()).isEmpty();
    }
  }

  @Test
  void plantedLinksAreReplacedWhenTheServerStarts() throws Exception {
    Files.createSymbolicLink(claim.resolve("s"), outsideDirectory);
    Files.createSymbolicLink(claim.resolve("agent.sock"), outsideFile);

    try (ClaimServer server = start();
        SmsliceClient client = SmsliceClient.connect(server.socketPath(), "team/det", "token")) {
      assertThat(client.info().sms()).isEqualTo(8);
      assertThat(Files.isSymbolicLink(claim.resolve("s"))).isFalse();
      assertThat(Files.isDirectory(claim.resolve("s"), LinkOption.NOFOLLOW_LINKS)).isTrue();
      assertThat(Files.isSymbolicLink(claim.resolve("agent.sock"))).isFalse();
      assertThat(
              PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(claim.resolve("s"), LinkOption.NOFOLLOW_LINKS)))
          .isEqualTo("rwx--x--x");
    }
    assertOutsideUntouched();
  }

  @Test
  void aLinkPlantedWhileServingIsNotFollowedBySessionFiles() throws Exception {
    try (ClaimServer server = start()) {
      Files.move(claim.resolve("s"), claim.resolve("moved"));
      Files.createSymbolicLink(claim.resolve("s"), outsideDirectory);

      try (SocketChannel channel = SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
        channel.connect(java.net.UnixDomainSocketAddress.of(server.socketPath()));
        hello(channel, "team/det", "token");
        assertThat(answer(channel).status()).isEqualTo(Status.OK);
        // The agent's file went into its own directory, wherever the tenant moved it.
        try (var files = Files.list(claim.resolve("moved"))) {
          assertThat(files.toList()).hasSize(1);
        }
      }
    }
    assertOutsideUntouched();
  }
}
