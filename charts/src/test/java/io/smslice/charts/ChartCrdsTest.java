package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart ships the CRDs generated from the Java API types (crds/*.yml, checked by that module's
 * drift test) byte for byte: a changed type must be copied into the chart, never edited there.
 */
class ChartCrdsTest {

  @Test
  void chartCrdsAreTheGeneratedOnes() throws IOException {
    Path generated = Chart.repoDir().resolve("crds");
    Path shipped = Chart.dir().resolve("crds");

    assertThat(names(shipped)).isEqualTo(names(generated)).isNotEmpty();
    for (String name : names(generated)) {
      // Compared as text so a failure shows the differing lines; equal text is equal bytes in
      // UTF-8.
      assertThat(Files.readString(shipped.resolve(name)))
          .as(
              "charts/smslice/crds/%s differs from crds/%s: copy it (cp crds/*.yml charts/smslice/crds/)",
              name, name)
          .isEqualTo(Files.readString(generated.resolve(name)));
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
          .sorted()
          .toList();
    }
  }
}
