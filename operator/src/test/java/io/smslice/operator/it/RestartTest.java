package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
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
 * (no memory of the first) takes over. Afterwards no SM group is held twice and every claim is
 * Bound or says why not. The first operator stops either gracefully or as if killed: its
 * connections to the API server are cut while it is writing, then it stops.
 */
@EnableKubernetesMockClient(crud = true)
class RestartTest {
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
    long boundAtStop = countPhase(Phase.Bound);
    long createdAtStop = countAll();
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
    System.out.printf(
        "restart (%s): %d claims, %d created and %d bound at stop, %d bound after restart%n",
        cutOff ? "cut off" : "graceful", claims, createdAtStop, boundAtStop, bound);
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
