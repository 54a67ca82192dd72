package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.protocol.GuardLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The guard file is laid out in two languages: guard_layout.h for the interposer, GuardLayout for
 * the agent. Every constant of one must be in the other with the same value.
 */
class GuardLayoutTest {
  private static final Pattern DEFINE =
      Pattern.compile("^#define GUARD_([A-Z_]+) ([^/]+?)\\s*(/\\*.*)?$", Pattern.MULTILINE);

  @Test
  void theHeaderAndGuardLayoutDefineTheSameConstants() throws Exception {
    Path header = Path.of(System.getProperty("interposer.sources"), "guard_layout.h");
    Map<String, Long> c = new TreeMap<>();
    Matcher m = DEFINE.matcher(Files.readString(header));
    while (m.find()) {
      c.put(m.group(1), evaluate(m.group(2), c));
    }
    Map<String, Long> java = new TreeMap<>();
    for (Field f : GuardLayout.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers())) {
        java.put(f.getName(), ((Number) f.get(null)).longValue());
      }
    }
    assertThat(c).hasSizeGreaterThan(25).isEqualTo(java);
  }

  @Test
  void everySlotFieldFitsItsSlotAndTheSlotsFitTheFile() {
    assertThat(GuardLayout.SLOT_CLAIM + GuardLayout.SLOT_CLAIM_BYTES)
        .isLessThanOrEqualTo(GuardLayout.SLOT_BYTES);
    assertThat(GuardLayout.RELEASES_OFFSET % 4).isZero();
    assertThat(GuardLayout.RELEASES_OFFSET + 4).isLessThanOrEqualTo(GuardLayout.SLOTS_OFFSET);
    assertThat(GuardLayout.slotOffset(GuardLayout.SLOTS)).isEqualTo(GuardLayout.FILE_BYTES);
  }

  /** A constant, a hex number, or a sum of products of earlier constants. */
  private static long evaluate(String text, Map<String, Long> known) {
    long sum = 0;
    for (String term : text.replace("(", "").replace(")", "").split("\\+")) {
      long product = 1;
      for (String factor : term.trim().split("\\*")) {
        String f = factor.trim().replaceAll("L+$", "");
        product *=
            f.startsWith("GUARD_")
                ? known.get(f.substring(6))
                : f.startsWith("0x") ? Long.parseLong(f.substring(2), 16) : Long.parseLong(f);
      }
      sum += product;
    }
    return sum;
  }
}
