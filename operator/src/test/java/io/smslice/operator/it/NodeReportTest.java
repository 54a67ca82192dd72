package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the node reports about a claim (SliceNode status.claims) reaches the claim: its Ready
 * condition (issue 12.16), and a resize held while unmodified programs run on the slice (issue 9).
 */
@EnableKubernetesMockClient(crud = true)
class NodeReportTest {
  KubernetesClient client;

  private void report(String node, String claim, boolean serving, String message, int processes) {
    SliceNode sn = client.resources(SliceNode.class).withName(node).get();
    ServedClaim s = new ServedClaim();
    s.setNamespace(NS);
    s.setName(claim);
    s.setGpuUuid("GPU-rep-0");
    s.setServing(serving);
    s.setMessage(message);
    s.setTransparentProcesses(processes);
    sn.getStatus().setClaims(new java.util.ArrayList<>(List.of(s)));
    sn.getStatus().setHeartbeat(Instant.now().toString());
    client.resource(sn).updateStatus();
  }

  private Optional<Condition> condition(String claim, String type) {
    SliceClaim c = Cluster.get(client, claim);
    if (c == null || c.getStatus() == null) {
      return Optional.empty();
    }
    return c.getStatus().getConditions().stream().filter(x -> x.getType().equals(type)).findFirst();
  }

  private void awaitCondition(String claim, String type, String status, String reason) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                condition(claim, type)
                    .filter(c -> c.getStatus().equals(status) && c.getReason().equals(reason))
                    .isPresent());
  }

  @Test
  void readyFollowsTheNodeAndAResizeWaitsForTransparentProcessesToGo() {
    Cluster.installCrds(client);
    Cluster.sliceNode(client, "rep-1", Instant.now(), Cluster.h200("GPU-rep-0", 0, "P-rep"));
    try (PlainOperator operator = new PlainOperator(client)) {
      client.resource(Cluster.claim("served", 16, "P-rep")).create();
      Cluster.awaitPhase(client, "served", Phase.Bound);
      awaitCondition("served", "Ready", "False", "WaitingForNode");

      report("rep-1", "served", false, "green context failed: out of memory", 0);
      awaitCondition("served", "Ready", "False", "NodeCannotServe");
      assertThat(condition("served", "Ready").orElseThrow().getMessage()).contains("out of memory");

      report("rep-1", "served", true, null, 2);
      awaitCondition("served", "Ready", "True", "Serving");

      Cluster.editSpec(client, "served", spec -> spec.setSms(32));
      awaitCondition("served", "Resized", "False", "TransparentProcesses");
      SliceClaim held = Cluster.get(client, "served");
      assertThat(held.getStatus().getBinding().getSms()).isEqualTo(16);
      assertThat(condition("served", "Resized").orElseThrow().getMessage())
          .contains("2 unmodified processes")
          .contains("restart the claim's pods");

      report("rep-1", "served", true, null, 0);
      awaitCondition("served", "Resized", "True", "Resized");
      assertThat(Cluster.get(client, "served").getStatus().getBinding().getSms()).isEqualTo(32);

      // A shrink is held the same way: the programs' green contexts span all 32 SMs, and the
      // groups given up would go to another claim while they run.
      // (Ready going False and True again shows the operator has read the report.)
      report("rep-1", "served", false, "agent restarting", 1);
      awaitCondition("served", "Ready", "False", "NodeCannotServe");
      report("rep-1", "served", true, null, 1);
      awaitCondition("served", "Ready", "True", "Serving");
      Cluster.editSpec(client, "served", spec -> spec.setSms(16));
      awaitCondition("served", "Resized", "False", "TransparentProcesses");
      assertThat(Cluster.get(client, "served").getStatus().getBinding().getSms()).isEqualTo(32);
      report("rep-1", "served", true, null, 0);
      awaitCondition("served", "Resized", "True", "Resized");
      assertThat(Cluster.get(client, "served").getStatus().getBinding().getSms()).isEqualTo(16);

      // Not serving is what counts, with or without a message from the node.
      report("rep-1", "served", false, null, 0);
      awaitCondition("served", "Ready", "False", "NodeCannotServe");
    }
  }
}
