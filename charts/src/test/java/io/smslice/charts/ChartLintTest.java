package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;

class ChartLintTest {

  @Test
  void strictLintPasses() {
    LintResult result = new Helm(Chart.dir()).lint().strict().call();

    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages())
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }
}
