package io.smslice.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run directory so long that claim sockets under it could not be bound is a config error. */
class RunDirectoryTest {
  @TempDir Path dir;

  private NodeConfig load(String run) throws Exception {
    Files.writeString(dir.resolve("default.yaml"), "version: v1\npaths: {run: " + run + "}\n");
    return new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
  }

  @Test
  void theLongestRunDirectoryThatFitsIsAcceptedAndOneByteMoreIsNot() throws Exception {
    String fits = "/" + "r".repeat(46);
    NodeConfig c = load(fits);
    assertThat(c.paths().longestClaimSocket().toString()).hasSize(NodePaths.UNIX_SOCKET_PATH_MAX);

    assertThatThrownBy(() -> load(fits + "r"))
        .isInstanceOf(ConfigException.class)
        .message()
        .contains("paths.run is '" + fits + "r'")
        .contains("up to 108 bytes, more than the 107")
        .contains("use a directory of at most 47 bytes");
  }

  @Test
  void theDefaultLeavesRoom() {
    assertThat(NodePaths.DEFAULTS.longestClaimSocket().toString()).hasSizeLessThan(80);
  }
}
