package io.smslice.node.transparent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interposer's installation on the host: by rename, so running tenants keep their copy. */
class InterposerInstallTest {
  private static final byte[] V1 = {0x7f, 'E', 'L', 'F', 1};
  private static final byte[] V2 = {0x7f, 'E', 'L', 'F', 2, 2};

  @TempDir Path tmp;

  @Test
  void aNewInstallReplacesTheFilesWhileAnOpenCopyKeepsItsBytes() throws Exception {
    Path image = tmp.resolve("image.so");
    Path host = tmp.resolve("host");
    Files.write(image, V1);
    InterposerInstall first = InterposerInstall.install(image, host);
    assertThat(first.problem()).isEmpty();
    assertThat(Files.readString(first.preload()))
        .isEqualTo("/run/smslice/interposer/libsmslice-interposer.so\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first.library())))
        .isEqualTo("r-xr-xr-x");

    try (InputStream mapped = Files.newInputStream(first.library())) {
      Files.write(image, V2);
      InterposerInstall second = InterposerInstall.install(image, host);
      assertThat(second.problem()).isEmpty();
      assertThat(Files.readAllBytes(second.library())).isEqualTo(V2);
      // A tenant that had the old file open still reads the old bytes: it was replaced, not
      // rewritten.
      assertThat(mapped.readAllBytes()).isEqualTo(V1);
    }
    try (var left = Files.list(host)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("libsmslice-interposer.so", "ld.so.preload");
    }
  }

  @Test
  void aMissingOrWrongLibraryIsAProblemThatSaysWhy() throws Exception {
    InterposerInstall missing = InterposerInstall.install(tmp.resolve("none.so"), tmp.resolve("a"));
    assertThat(missing.problem().orElseThrow())
        .contains("none.so does not exist: the node image must ship the interposer");

    Path text = tmp.resolve("text.so");
    Files.writeString(text, "not a library");
    assertThat(InterposerInstall.install(text, tmp.resolve("b")).problem().orElseThrow())
        .contains("is not an ELF shared library");
    assertThat(tmp.resolve("b/libsmslice-interposer.so")).doesNotExist();
  }

  @Test
  void filesRemovedAfterInstallAreReported() throws Exception {
    Path image = tmp.resolve("image.so");
    Files.write(image, V1);
    InterposerInstall install = InterposerInstall.install(image, tmp.resolve("host"));
    Files.delete(install.preload());
    assertThat(install.problem().orElseThrow()).contains("are gone; restart the smslice node pod");
  }
}
