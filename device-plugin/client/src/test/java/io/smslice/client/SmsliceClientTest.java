package io.smslice.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmsliceClientTest {
  @TempDir Path directory;

  @Test
  void missingEnvironmentSaysWhatToDo() {
    if (System.getenv("SMSLICE_SOCKET") != null) {
      return;
    }
    assertThatThrownBy(SmsliceClient::fromEnvironment)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("SMSLICE_SOCKET is not set")
        .hasMessageContaining("smslice.io/claim");
  }

  @Test
  void noAgentIsAClearError() {
    assertThatThrownBy(
            () -> SmsliceClient.connect(directory.resolve("agent.sock"), "team/det", "token"))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("cannot connect to the smslice agent");
  }
}
