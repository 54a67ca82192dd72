package io.smslice.operator.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.node.GpuMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ledger is what keeps two operators off each other's SM groups: a write based on a read that
 * another write has since overtaken is refused, never merged or overwritten.
 */
@EnableKubernetesMockClient(crud = true)
class NodeLedgerTest {
  KubernetesClient client;

  private static Binding green(String gpu, Integer... groups) {
    Binding b = new Binding();
    b.setNode("n1");
    b.setGpuUuid(gpu);
    b.setMode(GpuMode.Green);
    b.setSmGroups(new java.util.ArrayList<>(List.of(groups)));
    b.setSms(8 * groups.length);
    return b;
  }

  @Test
  void aWriteFromAStaleReadIsRefusedAndChangesNothing() {
    NodeLedger first = new NodeLedger(client, "ops");
    NodeLedger second = new NodeLedger(client, "ops");
    assertThat(first.write(first.read("n1"), Map.of("ml/a", green("GPU-0", 0)))).isTrue();

    // Both read the same version; the first to write wins, the other must read again.
    NodeLedger.Snapshot seenByFirst = first.read("n1");
    NodeLedger.Snapshot seenBySecond = second.read("n1");
    assertThat(
            first.write(seenByFirst, Map.of("ml/a", green("GPU-0", 0), "ml/b", green("GPU-0", 1))))
        .isTrue();
    assertThat(
            second.write(
                seenBySecond, Map.of("ml/a", green("GPU-0", 0), "ml/c", green("GPU-0", 1))))
        .as("the second writer's read is stale")
        .isFalse();
    assertThat(second.read("n1").bindings()).containsOnlyKeys("ml/a", "ml/b");

    // A writer that saw no ledger yet cannot create one over an existing one either.
    NodeLedger.Snapshot none = new NodeLedger.Snapshot("n1", null, Map.of());
    assertThat(second.write(none, Map.of("ml/c", green("GPU-0", 1)))).isFalse();
    assertThat(first.read("n1").bindings()).containsOnlyKeys("ml/a", "ml/b");
    assertThat(first.readAll()).containsOnlyKeys("n1");
  }
}
