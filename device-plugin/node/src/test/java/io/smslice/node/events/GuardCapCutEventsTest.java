package io.smslice.node.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.MutableClock;
import io.smslice.node.testing.NodeFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Events when the guard's cap cuts a best-effort claim's holds: on the claim and its pods. */
@EnableKubernetesMockClient(crud = true)
class GuardCapCutEventsTest {
  private static final String GPU = NodeFixture.GREEN.uuid();

  KubernetesClient client;

  @Test
  void newCapCutsGetAWarningOnTheClaimAndItsPodsAtMostOncePerMinute() {
    FakeCluster cluster = new FakeCluster();
    cluster.addClaim(
        FakeCluster.boundClaim(
            "batch", "trainer", NodeFixture.NODE, GPU, GpuMode.Green, 116, null, null));
    cluster.addPod(
        FakeCluster.pod(
            "batch",
            "trainer-0",
            NodeFixture.NODE,
            "trainer",
            "smslice.io/sm",
            116,
            "2026-12-02T01:00:00Z"));
    Map<String, Long> cuts = new ConcurrentHashMap<>(Map.of("batch/trainer", 0L, "ml/det", 0L));
    MutableClock clock = new MutableClock(Instant.parse("2026-12-02T03:00:00Z"));
    GuardCapCutEvents events =
        new GuardCapCutEvents(
            client,
            NodeFixture.NODE,
            new SliceClaimTargets(cluster, NodeFixture.NODE),
            () -> cuts,
            clock,
            Duration.ofMinutes(1));

    events.check();
    assertThat(events("batch")).isEmpty();

    cuts.put("batch/trainer", 5L);
    events.check();
    List<Event> first = events("batch");
    assertThat(first)
        .extracting(e -> e.getInvolvedObject().getKind() + " " + e.getInvolvedObject().getName())
        .containsExactlyInAnyOrder("SliceClaim trainer", "Pod trainer-0");
    assertThat(first)
        .allSatisfy(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getReason()).isEqualTo("GuardCapCut");
              assertThat(e.getMessage()).contains("held 5 launches").contains(NodeFixture.NODE);
            });

    // More cuts within the minute: no new event; after it, one that counts them all.
    clock.now = clock.now.plusSeconds(30);
    cuts.put("batch/trainer", 9L);
    events.check();
    assertThat(events("batch")).hasSize(2);
    clock.now = clock.now.plusSeconds(31);
    events.check();
    assertThat(events("batch"))
        .hasSize(4)
        .filteredOn(
            e ->
                e.getMessage()
                    .contains("The interference guard held 4 launches since 2026-12-02T03:00:00Z"))
        .hasSize(2);

    // No new cuts, or counts that started again with new slots: nothing to tell.
    clock.now = clock.now.plusSeconds(120);
    events.check();
    cuts.put("batch/trainer", 1L);
    events.check();
    assertThat(events("batch")).hasSize(4);
    assertThat(events("ml")).isEmpty();
  }

  private List<Event> events(String namespace) {
    return client.v1().events().inNamespace(namespace).list().getItems();
  }
}
