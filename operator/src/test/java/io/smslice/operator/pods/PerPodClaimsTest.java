package io.smslice.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Per-pod claim names fit the allocation ledger's <namespace>.<name> keys (at most 253 characters).
 */
class PerPodClaimsTest {
  @Test
  void shortNamesAreThePodsNameAndLongOnesFitTheLedgerKeyWithTheirNamespace() {
    assertThat(PerPodClaims.claimName("web-0", "shop")).isEqualTo("web-0-slice");
    String namespace = "n".repeat(63);
    String pod = "p".repeat(253);
    String name = PerPodClaims.claimName(pod, namespace);
    assertThat(namespace.length() + 1 + name.length()).isLessThanOrEqualTo(253);
    assertThat(name).endsWith("-slice").startsWith("ppp");
    assertThat(PerPodClaims.claimName("q".repeat(253), namespace)).isNotEqualTo(name);
    // A name that fits with a short namespace is kept whole.
    String fits = "f".repeat(240);
    assertThat(PerPodClaims.claimName(fits, "ns")).isEqualTo(fits + "-slice");
  }
}
