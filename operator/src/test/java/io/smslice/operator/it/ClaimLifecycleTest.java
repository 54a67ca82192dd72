package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static io.smslice.operator.it.Cluster.awaitPhase;
import static io.smslice.operator.it.Cluster.claim;
import static io.smslice.operator.it.Cluster.get;
import static io.smslice.operator.it.Cluster.h200;
import static io.smslice.operator.it.Cluster.sliceNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.node.GpuHealth;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The claim controller against the CRUD mock API server. Each test uses its own GPU product so that
 * tests sharing the one operator do not compete for GPUs.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = MockCluster.class)
class ClaimLifecycleTest {
  @Inject KubernetesClient client;

  private static Condition condition(SliceClaim c, String type) {
    return c.getStatus().getConditions().stream()
        .filter(x -> x.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void createdClaimIsBoundLabelledAndConditioned() {
    sliceNode(client, "life-1", Instant.now(), h200("GPU-life-1", 0, "P-life"));
    client.resource(claim("c16", 16, "P-life")).create();
    SliceClaim c = awaitPhase(client, "c16", Phase.Bound);
    assertThat(c.getStatus().getBinding().getNode()).isEqualTo("life-1");
    assertThat(c.getStatus().getBinding().getSmGroups()).containsExactly(0, 1);
    assertThat(c.getStatus().getBinding().getSms()).isEqualTo(16);
    assertThat(c.getStatus().getObservedGeneration()).isEqualTo(c.getMetadata().getGeneration());
    Condition placed = condition(c, "Placed");
    assertThat(placed.getStatus()).isEqualTo("True");
    assertThat(placed.getReason()).isEqualTo("Placed");
    assertThat(c.getMetadata().getFinalizers()).contains(SmsliceApi.CLAIM_FINALIZER);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "life-1"
                    .equals(
                        get(client, "c16").getMetadata().getLabels().get(SmsliceApi.NODE_LABEL)));
    assertThat(
            client.v1().events().inNamespace(NS).list().getItems().stream()
                .anyMatch(
                    e ->
                        e.getInvolvedObject().getName().equals("c16")
                            && e.getReason().equals("Placed")))
        .isTrue();
  }

  @Test
  void deleteFreesTheSlice() {
    sliceNode(client, "del-1", Instant.now(), h200("GPU-del-1", 0, "P-del"));
    client.resource(claim("whole", 132, "P-del")).create();
    awaitPhase(client, "whole", Phase.Bound);
    client.resource(claim("waiting", 64, "P-del")).create();
    SliceClaim waiting = awaitPhase(client, "waiting", Phase.Pending);
    assertThat(waiting.getStatus().getMessage()).contains("waiting for capacity");
    client.resources(SliceClaim.class).inNamespace(NS).withName("whole").delete();
    await().atMost(Duration.ofSeconds(20)).until(() -> get(client, "whole") == null);
    assertThat(awaitPhase(client, "waiting", Phase.Bound).getStatus().getBinding().getSms())
        .isEqualTo(64);
  }

  @Test
  void resizeGrowsInPlaceOrSaysWhyNot() {
    sliceNode(client, "rs-1", Instant.now(), h200("GPU-rs-1", 0, "P-rs"));
    client.resource(claim("grow", 16, "P-rs")).create();
    awaitPhase(client, "grow", Phase.Bound);
    Cluster.editSpec(client, "grow", spec -> spec.setSms(40));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> get(client, "grow").getStatus().getBinding().getSms() == 40);
    SliceClaim grown = get(client, "grow");
    assertThat(grown.getStatus().getBinding().getSmGroups()).contains(0, 1);
    assertThat(grown.getStatus().getPhase()).isEqualTo(Phase.Bound);
    assertThat(condition(grown, "Resized").getStatus()).isEqualTo("True");
    Cluster.editSpec(client, "grow", spec -> spec.setSms(200));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "False".equals(condition(get(client, "grow"), "Resized").getStatus()));
    SliceClaim refused = get(client, "grow");
    assertThat(refused.getStatus().getBinding().getSms()).isEqualTo(40);
    assertThat(condition(refused, "Resized").getMessage()).contains("no room");
  }

  @Test
  void claimsOnALostNodeOrUnhealthyGpuArePlacedAgain() {
    sliceNode(client, "lost-1", Instant.now(), h200("GPU-lost-1", 0, "P-lost"));
    client.resource(claim("mover", 64, "P-lost")).create();
    assertThat(awaitPhase(client, "mover", Phase.Bound).getStatus().getBinding().getNode())
        .isEqualTo("lost-1");
    sliceNode(client, "lost-2", Instant.now(), h200("GPU-lost-2", 0, "P-lost"));
    // lost-1 stops beating: its heartbeat is an hour old.
    sliceNode(
        client,
        "lost-1",
        Instant.now().minus(Duration.ofHours(1)),
        h200("GPU-lost-1", 0, "P-lost"));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "lost-2".equals(get(client, "mover").getStatus().getBinding().getNode()));
    assertThat(condition(get(client, "mover"), "Placed").getReason()).isEqualTo("Replaced");
    // Then lost-2's GPU turns unhealthy and lost-1 comes back: the claim moves back.
    sliceNode(client, "lost-1", Instant.now(), h200("GPU-lost-1", 0, "P-lost"));
    var sick = h200("GPU-lost-2", 0, "P-lost");
    sick.setHealth(GpuHealth.Unhealthy);
    sick.setHealthReason("XID 79");
    sliceNode(client, "lost-2", Instant.now(), sick);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> "lost-1".equals(get(client, "mover").getStatus().getBinding().getNode()));
  }

  @Test
  void badClaimsFailWithAReason() {
    sliceNode(client, "bad-1", Instant.now(), h200("GPU-bad-1", 0, "P-bad"));
    client.resource(claim("huge", 500, "P-bad")).create();
    SliceClaim huge = awaitPhase(client, "huge", Phase.Failed);
    assertThat(huge.getStatus().getMessage()).contains("no GPU in the cluster can hold 500 SMs");
    assertThat(condition(huge, "Placed").getReason()).isEqualTo("NoSuitableGpu");

    client.resource(claim("nosms", null, "P-bad")).create();
    SliceClaim nosms = awaitPhase(client, "nosms", Phase.Failed);
    assertThat(nosms.getStatus().getMessage()).contains("spec.sms is required");

    client.resource(claim("elsewhere", 8, "NVIDIA B200")).create();
    assertThat(awaitPhase(client, "elsewhere", Phase.Failed).getStatus().getMessage())
        .contains("product NVIDIA B200");
  }

  @Test
  void missingDefaultsMeanAutoAndStandard() {
    sliceNode(client, "def-1", Instant.now(), h200("GPU-def-1", 0, "P-def"));
    SliceClaim c = claim("bare", 8, "P-def");
    SliceClaimSpec spec = c.getSpec();
    spec.setIsolation(null);
    spec.setPriority(null);
    client.resource(c).create();
    SliceClaim bound = awaitPhase(client, "bare", Phase.Bound);
    assertThat(bound.getStatus().getBinding().getSms()).isEqualTo(8);
  }

  @Test
  void latencyCriticalDisplacesBestEffortWhichWaits() {
    sliceNode(client, "pre-1", Instant.now(), h200("GPU-pre-1", 0, "P-pre"));
    SliceClaim batch = claim("batch", 132, "P-pre");
    batch.getSpec().setPriority(io.smslice.api.v1alpha1.claim.Priority.BestEffort);
    client.resource(batch).create();
    awaitPhase(client, "batch", Phase.Bound);
    SliceClaim detector = claim("detector", 16, "P-pre");
    detector.getSpec().setPriority(io.smslice.api.v1alpha1.claim.Priority.LatencyCritical);
    client.resource(detector).create();
    awaitPhase(client, "detector", Phase.Bound);
    SliceClaim displaced = awaitPhase(client, "batch", Phase.Pending);
    assertThat(displaced.getStatus().getBinding()).isNull();
    assertThat(displaced.getStatus().getMessage())
        .contains("displaced by LatencyCritical claim test/detector");
  }

  @Test
  void metricsReportClaimsAndGpus() {
    sliceNode(client, "met-1", Instant.now(), h200("GPU-met-1", 0, "P-met"));
    client.resource(claim("metered", 24, "P-met")).create();
    awaitPhase(client, "metered", Phase.Bound);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              String text =
                  io.restassured.RestAssured.get("/q/metrics")
                      .then()
                      .statusCode(200)
                      .extract()
                      .asString();
              assertThat(text).contains("smslice_claims{phase=\"Bound\"}");
              assertThat(text).contains("smslice_placement_seconds_count");
              assertThat(text)
                  .containsPattern(
                      "smslice_gpu_sms_allocated\\{gpu=\"GPU-met-1\",mode=\"GREEN\",node=\"met-1\"} 24\\.0");
              assertThat(text)
                  .containsPattern(
                      "smslice_gpu_sms_free\\{gpu=\"GPU-met-1\",mode=\"GREEN\",node=\"met-1\"} 108\\.0");
              assertThat(text).contains("smslice_fragmentation_ratio");
            });
  }

  @Test
  void memoryClaimTakesAMigInstanceAndSharedAnMpsShare() {
    var mig = h200("GPU-mig-1", 0, "P-mig");
    mig.setMode(io.smslice.api.v1alpha1.node.GpuMode.MIG);
    mig.setSmGroups(new java.util.ArrayList<>());
    mig.setMigInstances(
        java.util.List.of(
            new io.smslice.api.v1alpha1.node.MigInstance(
                "3g.71gb", "MIG-a", 60, new io.fabric8.kubernetes.api.model.Quantity("71Gi")),
            new io.smslice.api.v1alpha1.node.MigInstance(
                "1g.18gb", "MIG-b", 16, new io.fabric8.kubernetes.api.model.Quantity("18Gi"))));
    sliceNode(client, "mig-1", Instant.now(), mig, Cluster.mps("GPU-mps-1", 1, "P-mig"));
    SliceClaim memory = claim("tenant", null, "P-mig");
    memory.getSpec().setIsolation(io.smslice.api.v1alpha1.claim.Isolation.Memory);
    memory.getSpec().setMemory(new io.fabric8.kubernetes.api.model.Quantity("10Gi"));
    client.resource(memory).create();
    var b = awaitPhase(client, "tenant", Phase.Bound).getStatus().getBinding();
    assertThat(b.getMigDeviceUuid()).isEqualTo("MIG-b");
    assertThat(b.getMigProfile()).isEqualTo("1g.18gb");
    assertThat(b.getSms()).isEqualTo(16);

    SliceClaim shared = claim("unmodified", 33, "P-mig");
    shared.getSpec().setIsolation(io.smslice.api.v1alpha1.claim.Isolation.Shared);
    client.resource(shared).create();
    var s = awaitPhase(client, "unmodified", Phase.Bound).getStatus().getBinding();
    assertThat(s.getGpuUuid()).isEqualTo("GPU-mps-1");
    assertThat(s.getMode()).isEqualTo(io.smslice.api.v1alpha1.node.GpuMode.MPS);
  }

  @Test
  void aMemoryBoundClaimIsToldWhatAGreenSliceDoesNotIsolate() {
    sliceNode(client, "membound-1", Instant.now(), h200("GPU-membound-1", 0, "P-membound"));
    SliceClaim c = claim("embeddings", 16, "P-membound");
    c.getSpec().setMemoryBound(true);
    client.resource(c).create();
    SliceClaim bound = awaitPhase(client, "embeddings", Phase.Bound);
    assertThat(bound.getStatus().getBinding().getMode())
        .isEqualTo(io.smslice.api.v1alpha1.node.GpuMode.Green);
    assertThat(condition(bound, "Placed").getMessage())
        .contains("memory-bound")
        .contains("memory bandwidth and L2 are shared");
  }
}
