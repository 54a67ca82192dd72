package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code ./demo --help} prints the usage and exits 0, before any build or Java check. */
class DemoScriptTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

  @ParameterizedTest
  @ValueSource(strings = {"--help", "-h"})
  void helpPrintsTheUsage(String flag) throws Exception {
    Process p =
        new ProcessBuilder("bash", "demo", "--headless", flag)
            .directory(REPOSITORY.toFile())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("./demo --seconds=0", "./demo --headless", "./demo --gpu", "./demo --help")
        .doesNotContain("[build]", "set -euo");
  }
}
