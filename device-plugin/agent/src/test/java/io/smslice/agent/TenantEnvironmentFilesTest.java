package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TenantEnvironmentFilesTest {
  @TempDir Path run;

  @Test
  void writesOneReadableFilePerContainerAndForgetsThemWithTheClaim() throws Exception {
    var files = new TenantEnvironmentFiles(run);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("SMSLICE_CLAIM", "ml/detector");
    env.put("SMSLICE_TOKEN", "abc");
    Path main = files.write("ml", "detector", "uid-1", "main", env);
    Path side = files.write("ml", "detector", "uid-1", "sidecar", Map.of("SMSLICE_TOKEN", "def"));
    Path other = files.write("ml", "other", "uid-2", "main", Map.of("SMSLICE_TOKEN", "ghi"));

    assertThat(Files.readAllLines(main))
        .containsExactly("SMSLICE_CLAIM=ml/detector", "SMSLICE_TOKEN=abc");
    assertThat(Files.readAllLines(side)).containsExactly("SMSLICE_TOKEN=def");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(main)))
        .isEqualTo("rw-r--r--");
    // A second Allocate of the same container replaces its file (a new token).
    files.write("ml", "detector", "uid-1", "main", Map.of("SMSLICE_TOKEN", "new"));
    assertThat(Files.readAllLines(main)).containsExactly("SMSLICE_TOKEN=new");
    try (var left = Files.list(main.getParent())) {
      assertThat(left).hasSize(2); // no temporary files left behind
    }

    files.forget("ml", "detector");
    assertThat(main.getParent()).doesNotExist();
    assertThat(other).exists();
  }

  @Test
  void refusesNamesThatCouldLeaveItsDirectoryAndValuesThatCouldAddLines() {
    var files = new TenantEnvironmentFiles(run);
    assertThatThrownBy(() -> files.write("ml", "c", "../../etc", "main", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a plain name");
    assertThatThrownBy(() -> files.write("ml", "c", "uid", "a/b", Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                files.write("ml", "c", "uid", "main", Map.of("SMSLICE_TOKEN", "x\nLD_PRELOAD=/x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("on one line");
  }
}
