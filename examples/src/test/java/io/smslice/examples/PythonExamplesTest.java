package io.smslice.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the Python tests of the examples with the machine's python3, so the build checks them: the
 * PyTorch ensemble's (the frame clock, the voter's tally, the voter process over a Unix socket, the
 * comparison's configurations and table) and the sizing tool's (model specs, the report and its
 * picture, the cluster sweep against a stand-in kubectl). They need no torch and no GPU; without
 * python3 they are skipped.
 */
class PythonExamplesTest {
  private static final Path EXAMPLES = Path.of("").toAbsolutePath().getParent().resolve("examples");

  @ParameterizedTest
  @ValueSource(strings = {"ensemble/python", "ensemble/compare", "sizing"})
  void pythonTestsPass(String folder) throws Exception {
    assumeTrue(python3Runs(), "python3 is not installed");
    Process p =
        new ProcessBuilder("python3", "-B", "-m", "unittest", "discover", "-p", "test_*.py")
            .directory(EXAMPLES.resolve(folder).toFile())
            .redirectErrorStream(true)
            .start();
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done).as("python tests finished in time").isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("OK");
  }

  private static boolean python3Runs() {
    try {
      Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
