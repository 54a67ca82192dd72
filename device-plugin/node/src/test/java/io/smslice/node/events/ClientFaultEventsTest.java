package io.smslice.node.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.NodeFixture;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events for a client fault under MPS: on every claim of the GPU and on those claims' pods. */
@EnableKubernetesMockClient(crud = true)
class ClientFaultEventsTest {
  private static final String GPU = NodeFixture.GREEN.uuid();
  private static final String OTHER_GPU = NodeFixture.MPS.uuid();
  private static final String SM = "smslice.io/sm";

  KubernetesClient client;

  @Test
  void eachClaimOnTheGpuAndEachOfItsPodsGetsAWarningWithTheXidAndTheTime() {
    FakeCluster cluster = new FakeCluster();
    cluster.addClaim(
        FakeCluster.boundClaim(
            "ml", "detector", NodeFixture.NODE, GPU, GpuMode.Green, 16, null, null));
    cluster.addClaim(
        FakeCluster.boundClaim(
            "batch", "trainer", NodeFixture.NODE, OTHER_GPU, GpuMode.Green, 64, null, null));
    cluster.addPod(pod("ml", "detector-0", "detector"));
    cluster.addPod(pod("ml", "detector-1", "detector"));
    cluster.addPod(pod("batch", "trainer-0", "trainer"));
    // A claim the agent serves on the GPU with no pod yet is told too.
    List<ClaimState> served =
        List.of(new ClaimState("ml", "ensemble", GPU, List.of(2), true, null, List.of()));

    new ClientFaultEvents(client, NodeFixture.NODE, cluster, () -> served)
        .clientFault(GPU, 43, Instant.parse("2026-12-01T03:00:00.123Z"));

    List<Event> ml = client.v1().events().inNamespace("ml").list().getItems();
    assertThat(ml)
        .extracting(e -> e.getInvolvedObject().getKind() + " " + e.getInvolvedObject().getName())
        .containsExactlyInAnyOrder(
            "SliceClaim ensemble", "SliceClaim detector", "Pod detector-0", "Pod detector-1");
    assertThat(ml)
        .allSatisfy(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getReason()).isEqualTo("GpuClientFault");
              assertThat(e.getMessage())
                  .contains("Xid 43 at 2026-12-01T03:00:00.123Z")
                  .contains("GPU " + GPU);
              assertThat(e.getSource().getHost()).isEqualTo(NodeFixture.NODE);
            });
    assertThat(client.v1().events().inNamespace("batch").list().getItems()).isEmpty();
  }

  private static io.fabric8.kubernetes.api.model.Pod pod(String ns, String name, String claim) {
    return FakeCluster.pod(ns, name, NodeFixture.NODE, claim, SM, 16, "2026-12-01T01:00:00Z");
  }
}
