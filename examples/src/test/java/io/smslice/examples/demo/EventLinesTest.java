package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EventLinesTest {
  private static final String NL = System.lineSeparator();

  @Test
  void aScreenShowsTheLatestLinesAndPlainBlocksShowEachLineOnce() {
    EventLines lines = new EventLines();
    assertThat(lines.latest(4)).isEmpty();
    for (int i = 1; i <= 5; i++) {
      lines.add("line " + i);
    }
    assertThat(lines.latest(2)).isEqualTo(NL + "line 4" + NL + "line 5");
    assertThat(lines.sinceLastCall()).startsWith(NL + "line 1").endsWith("line 5");
    assertThat(lines.sinceLastCall()).isEmpty();
    lines.add("line 6");
    assertThat(lines.sinceLastCall()).isEqualTo(NL + "line 6");
    assertThat(lines.latest(2)).isEqualTo(NL + "line 5" + NL + "line 6");
  }
}
