package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.NodeGpu;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * 1000 claims, more than the GPUs hold; the operator is stopped while placing them and a fresh one
 * (no memory of the first) takes over. Every claim Bound when the first stopped keeps its node,
 * GPU, SM groups and SM count, and its ledger entry; no SM group is ever shown bound to two claims
 * (watched all the while, {@link GroupWatch}); every claim is Bound or says why not. The first
 * operator stops either gracefully or as if killed: its connections to the API server are cut while
 * it is writing, then it stops. The ledger of one node is then deleted, as if its claims had been
 * bound by an operator that kept none: the fresh operator takes them from their status.
 */
@EnableKubernetesMockClient(crud = true)
class RestartTest {
  private static final String NODE_ANNOTATION = SmsliceApi.GROUP + "/node";

  KubernetesClient client;

  @Test
  void aGracefulRestartMidwayNeverDoubleAllocates() {
    restartMidway(false);
  }

  @Test
  void anOperatorCutOffMidWriteNeverDoubleAllocates() {
    restartMidway(true);
  }

  private void restartMidway(boolean cutOff) {
    Cluster.installCrds(client);
    Map<String, NodeGpu> gpus = new HashMap<>();
    for (int n = 0; n < 20; n++) {
      NodeGpu[] node = new NodeGpu[8];
      for (int g = 0; g < 8; g++) {
        node[g] = Cluster.h200("GPU-r" + n + "-" + g, g, "NVIDIA H200");
        gpus.put(node[g].getUuid(), node[g]);
      }
      Cluster.sliceNode(client, "r" + n, Instant.now(), node);
    }
    Random random = new Random(42);
    GroupWatch watch = new GroupWatch(client, NS);
    int claims = 1000;
    KubernetesClient firstClient =
        new KubernetesClientBuilder().withConfig(client.getConfiguration()).build();
    PlainOperator first = new PlainOperator(firstClient);
    // Claims arrive all the while: the first operator is stopped in the middle of placing them,
    // and the rest arrive while no operator runs.
    CompletableFuture<Void> arriving =
        CompletableFuture.runAsync(
            () -> {
              for (int i = 0; i < claims; i++) {
                client.resource(Cluster.claim("r-" + i, 8 + random.nextInt(33), null)).create();
              }
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> countPhase(Phase.Bound) >= 200);
    if (cutOff) {
      firstClient.close();
    }
    first.close();
    firstClient.close();
    long createdAtStop = countAll();
    Map<String, Binding> atStop = new HashMap<>();
    for (SliceClaim c : client.resources(SliceClaim.class).inNamespace(NS).list().getItems()) {
      if (c.getStatus() != null && c.getStatus().getPhase() == Phase.Bound) {
        atStop.put(c.getMetadata().getName(), c.getStatus().getBinding());
      }
    }
    long boundAtStop = atStop.size();
    String unrecorded = busiestNode(atStop);
    long onUnrecorded =
        atStop.values().stream().filter(b -> b.getNode().equals(unrecorded)).count();
    dropLedgerOf(unrecorded);
    arriving.join();

    try (PlainOperator second = new PlainOperator(client)) {
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> settled() == claims);
    }
    List<SliceClaim> all = client.resources(SliceClaim.class).inNamespace(NS).list().getItems();
    Map<String, Set<Integer>> taken = new HashMap<>();
    Map<String, Integer> sms = new HashMap<>();
    int bound = 0;
    for (SliceClaim c : all) {
      var status = c.getStatus();
      if (status.getPhase() == Phase.Bound) {
        bound++;
        var b = status.getBinding();
        assertThat(b.getSms()).isGreaterThanOrEqualTo(c.getSpec().getSms());
        Set<Integer> used = taken.computeIfAbsent(b.getGpuUuid(), k -> new HashSet<>());
        int sum = 0;
        for (int id : b.getSmGroups()) {
          assertThat(used.add(id))
              .as("group %d of %s held twice (%s)", id, b.getGpuUuid(), c.getMetadata().getName())
              .isTrue();
          sum += gpus.get(b.getGpuUuid()).getSmGroups().get(id).getSms();
        }
        assertThat(sum).isEqualTo(b.getSms());
        sms.merge(b.getGpuUuid(), sum, Integer::sum);
      } else {
        assertThat(status.getPhase()).isEqualTo(Phase.Pending);
        assertThat(status.getMessage()).contains("waiting for capacity");
      }
    }
    sms.values().forEach(v -> assertThat(v).isLessThanOrEqualTo(132));
    assertThat(bound).isGreaterThan((int) boundAtStop);

    Map<String, Binding> ledgers = ledgerEntries();
    Map<String, SliceClaim> byName = new HashMap<>();
    all.forEach(c -> byName.put(c.getMetadata().getName(), c));
    atStop.forEach(
        (name, before) -> {
          var now = byName.get(name).getStatus();
          assertThat(now.getPhase()).as("%s was Bound at the restart", name).isEqualTo(Phase.Bound);
          assertThat(where(now.getBinding()))
              .as("%s after the restart", name)
              .isEqualTo(where(before));
          assertThat(ledgers.get(NS + "/" + name))
              .as("%s in the ledger after the restart", name)
              .isNotNull()
              .extracting(RestartTest::where)
              .isEqualTo(where(before));
        });
    watch.close();
    assertThat(watch.doubles()).as("double bindings seen during the run").isEmpty();
    System.out.printf(
        "restart (%s): %d claims, %d created and %d bound at stop (%d on %s, its ledger dropped),"
            + " %d bound after restart, each bound at stop kept its slice%n",
        cutOff ? "cut off" : "graceful",
        claims,
        createdAtStop,
        boundAtStop,
        onUnrecorded,
        unrecorded,
        bound);
  }

  /** What a binding must keep across a restart. */
  private static List<Object> where(Binding b) {
    return List.of(b.getNode(), b.getGpuUuid(), List.copyOf(b.getSmGroups()), b.getSms());
  }

  private static String busiestNode(Map<String, Binding> bound) {
    Map<String, Integer> count = new HashMap<>();
    bound.values().forEach(b -> count.merge(b.getNode(), 1, Integer::sum));
    return count.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  private List<ConfigMap> ledgers() {
    return client
        .configMaps()
        .inAnyNamespace()
        .withLabel(SmsliceApi.GROUP + "/allocations", "true")
        .list()
        .getItems();
  }

  private void dropLedgerOf(String node) {
    List<ConfigMap> of =
        ledgers().stream()
            .filter(cm -> node.equals(cm.getMetadata().getAnnotations().get(NODE_ANNOTATION)))
            .toList();
    assertThat(of).hasSize(1);
    client.resource(of.getFirst()).withGracePeriod(0).delete();
  }

  /** Every ledger entry, by claim key (namespace/name). */
  private Map<String, Binding> ledgerEntries() {
    Map<String, Binding> all = new HashMap<>();
    for (ConfigMap cm : ledgers()) {
      cm.getData()
          .forEach(
              (k, v) ->
                  all.put(
                      k.replaceFirst("\\.", "/"),
                      client.getKubernetesSerialization().unmarshal(v, Binding.class)));
    }
    return all;
  }

  private long countAll() {
    return client.resources(SliceClaim.class).inNamespace(NS).list().getItems().size();
  }

  private long countPhase(Phase phase) {
    return client.resources(SliceClaim.class).inNamespace(NS).list().getItems().stream()
        .filter(c -> c.getStatus() != null && c.getStatus().getPhase() == phase)
        .count();
  }

  private long settled() {
    return client.resources(SliceClaim.class).inNamespace(NS).list().getItems().stream()
        .filter(
            c ->
                c.getStatus() != null
                    && (c.getStatus().getPhase() == Phase.Bound
                        || (c.getStatus().getPhase() == Phase.Pending
                            && c.getStatus().getMessage() != null)))
        .count();
  }
}
