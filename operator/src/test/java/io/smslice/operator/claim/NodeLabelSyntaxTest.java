package io.smslice.operator.claim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 12.15: node label keys and values in a claim's selector are checked. */
class NodeLabelSyntaxTest {
  @Test
  void acceptsWhatNodesCanCarry() {
    assertThat(
            NodeLabelSyntax.invalid(
                Map.of(
                    "zone", "a",
                    "topology.kubernetes.io/zone", "eu-west-1a",
                    "smslice.io/config", "")))
        .isNull();
  }

  @Test
  void rejectsKeysAndValuesNoNodeCanCarry() {
    assertThat(NodeLabelSyntax.invalid(Map.of("my zone", "a"))).contains("'my zone'");
    assertThat(NodeLabelSyntax.invalid(Map.of("Example.com/zone", "a"))).contains("prefix");
    assertThat(NodeLabelSyntax.invalid(Map.of("a/b/c", "a"))).contains("label key");
    assertThat(NodeLabelSyntax.invalid(Map.of("zone", "a b"))).contains("'a b'");
    assertThat(NodeLabelSyntax.invalid(Map.of("zone", "x".repeat(64)))).contains("63");
    assertThat(NodeLabelSyntax.invalid(Map.of("", "a"))).contains("label key");
  }
}
