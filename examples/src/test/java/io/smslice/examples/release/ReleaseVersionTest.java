package io.smslice.examples.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The version a release publishes is written in several places (Maven, the chart's version and
 * appVersion, which the chart's image tags default to, the example workloads' image tags,
 * CHANGELOG.md); {@code .ci/release check} says whether they agree, and this test runs it on the
 * repository and on a copy where the chart was left behind.
 */
class ReleaseVersionTest {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void theRepositorysVersionsAgree() throws Exception {
    Result r = run(ROOT, "check");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("Maven, chart, images and CHANGELOG agree");
  }

  @Test
  void aChartLeftAtAnotherVersionFailsTheCheck(@TempDir Path copy) throws Exception {
    for (String f :
        List.of(".ci/release", "pom.xml", "CHANGELOG.md", "charts/smslice/Chart.yaml")) {
      Files.createDirectories(copy.resolve(f).getParent());
      Files.copy(ROOT.resolve(f), copy.resolve(f));
    }
    Path chart = copy.resolve("charts/smslice/Chart.yaml");
    Files.writeString(
        chart,
        Files.readString(chart).replaceFirst("(?m)^appVersion: .*$", "appVersion: \"9.9.9\""));
    Files.createDirectories(copy.resolve("examples"));
    Result r = run(copy, "check");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("Chart.yaml appVersion 9.9.9").contains("versions disagree");
  }

  @Test
  void aVersionThatIsNotSemanticIsRefused() throws Exception {
    Result r = run(ROOT, "version", "1.2");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("version must be X.Y.Z or X.Y.Z-SNAPSHOT, got '1.2'");
  }

  private record Result(int exit, String output) {}

  private static Result run(Path root, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("bash", ".ci/release"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
    boolean done = p.waitFor(60, TimeUnit.SECONDS);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!done) {
      p.destroyForcibly();
      throw new AssertionError(".ci/release did not finish: " + out);
    }
    return new Result(p.exitValue(), out);
  }
}
