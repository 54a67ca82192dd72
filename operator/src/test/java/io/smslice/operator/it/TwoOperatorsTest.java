package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 12.6: two operators acting as leader at once (a lease overlap), each with its own client
 * and memory, against one API. However their decisions interleave, no SM group ends up held by two
 * claims, and every claim is Bound or says why not. Checked after every status write while both run
 * ({@link GroupWatch}), not only at the end: a double binding that a later reload repairs still
 * counts.
 */
@EnableKubernetesMockClient(crud = true)
class TwoOperatorsTest {
  KubernetesClient client;

  @Test
  void twoLeadersAtOnceNeverBindTwoClaimsToOneGroup() {
    Cluster.installCrds(client);
    Cluster.sliceNode(
        client,
        "dual-1",
        Instant.now(),
        Cluster.h200("GPU-dual-0", 0, "P-dual"),
        Cluster.h200("GPU-dual-1", 1, "P-dual"));
    int claims = 40; // 32 groups of 8 or more: more claims than fit
    try (GroupWatch watch = new GroupWatch(client, NS);
        KubernetesClient a = fresh();
        KubernetesClient b = fresh();
        PlainOperator first = new PlainOperator(a);
        PlainOperator second = new PlainOperator(b)) {
      for (int i = 0; i < claims; i++) {
        client.resource(Cluster.claim("dual-" + i, 8, "P-dual")).create();
      }
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> settled() == claims);
      // Both keep running a while: a late decision of either must not break the invariant.
      await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
      assertThat(watch.doubles()).as("double bindings seen during the run").isEmpty();
      List<SliceClaim> all = client.resources(SliceClaim.class).inNamespace(NS).list().getItems();
      Map<String, Set<Integer>> taken = new HashMap<>();
      int bound = 0;
      for (SliceClaim c : all) {
        if (c.getStatus().getPhase() != Phase.Bound) {
          continue;
        }
        bound++;
        var binding = c.getStatus().getBinding();
        Set<Integer> used = taken.computeIfAbsent(binding.getGpuUuid(), k -> new HashSet<>());
        for (int id : binding.getSmGroups()) {
          assertThat(used.add(id))
              .as(
                  "group %d of %s held twice (%s)",
                  id, binding.getGpuUuid(), c.getMetadata().getName())
              .isTrue();
        }
      }
      assertThat(bound).isEqualTo(32);
    }
  }

  private KubernetesClient fresh() {
    return new KubernetesClientBuilder().withConfig(client.getConfiguration()).build();
  }

  private long settled() {
    return client.resources(SliceClaim.class).inNamespace(NS).list().getItems().stream()
        .filter(
            c ->
                c.getStatus() != null
                    && (c.getStatus().getPhase() == Phase.Bound
                        || c.getStatus().getPhase() == Phase.Pending))
        .count();
  }
}
