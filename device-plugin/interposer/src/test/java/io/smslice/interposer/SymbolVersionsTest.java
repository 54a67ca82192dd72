package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The library is preloaded into every process of a claim's containers, whatever the image: a glibc
 * symbol version it needs that the image lacks stops every process there, the shell included. It
 * must load with glibc 2.17 and later.
 */
class SymbolVersionsTest {
  private static final Pattern VERSION = Pattern.compile("GLIBC_(\\d+)\\.(\\d+)");

  @Test
  void theLibraryNeedsNoGlibcSymbolNewerThan2_17() throws Exception {
    Process objdump =
        new ProcessBuilder("objdump", "-T", ProgramRun.LIBRARY.toString())
            .redirectErrorStream(true)
            .start();
    List<String> lines = new String(objdump.getInputStream().readAllBytes()).lines().toList();
    assertThat(objdump.waitFor()).isZero();

    List<String> needed = lines.stream().filter(l -> l.contains("*UND*")).toList();
    assertThat(needed).anyMatch(l -> l.contains("GLIBC_"));
    for (String l : needed) {
      Matcher m = VERSION.matcher(l);
      if (!m.find()) continue;
      int major = Integer.parseInt(m.group(1)), minor = Integer.parseInt(m.group(2));
      assertThat(major * 100 + minor).as(l).isLessThanOrEqualTo(217);
    }
  }
}
