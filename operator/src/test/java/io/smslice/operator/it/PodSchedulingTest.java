package io.smslice.operator.it;

import static io.restassured.RestAssured.given;
import static io.smslice.operator.it.Cluster.NS;
import static io.smslice.operator.it.Cluster.awaitPhase;
import static io.smslice.operator.it.Cluster.claim;
import static io.smslice.operator.it.Cluster.h200;
import static io.smslice.operator.it.Cluster.sliceNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.operator.pods.SlicePods;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The webhook and the smslice-scheduler against the CRUD mock API server. */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = MockCluster.class)
class PodSchedulingTest {
  @Inject KubernetesClient client;

  private static Pod pod(String name, String claim, Integer sms) {
    var builder =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(NS)
            .withUid("uid-" + name)
            .addToAnnotations(SmsliceApi.CLAIM_ANNOTATION, claim)
            .addToLabels(SlicePods.MANAGED_LABEL, "true")
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(SlicePods.SCHEDULER_NAME)
            .addNewContainer()
            .withName("main")
            .withImage("busybox")
            .endContainer()
            .endSpec();
    Pod p = builder.build();
    if (sms != null) {
      var q = Map.of(SlicePods.SM_RESOURCE, new Quantity(sms.toString()));
      p.getSpec()
          .getContainers()
          .getFirst()
          .setResources(
              new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                  .withRequests(q)
                  .withLimits(q)
                  .build());
    }
    return p;
  }

  private boolean hasEvent(String object, String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .anyMatch(
            e -> e.getInvolvedObject().getName().equals(object) && e.getReason().equals(reason));
  }

  @Test
  void boundClaimsPodIsBoundToTheClaimsNode() {
    sliceNode(client, "pod-1", Instant.now(), h200("GPU-pod-1", 0, "P-pod"));
    client.resource(claim("sched-claim", 16, "P-pod")).create();
    awaitPhase(client, "sched-claim", Phase.Bound);
    client.resource(pod("sched-pod", "sched-claim", 16)).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> MockCluster.BINDINGS.stream().anyMatch(b -> b.contains("\"pod-1\"")));
    String body = MockCluster.BINDINGS.getFirst();
    assertThat(body).contains("\"kind\":\"Binding\"").contains("\"name\":\"sched-pod\"");
    await().atMost(Duration.ofSeconds(10)).until(() -> hasEvent("sched-pod", "Scheduled"));
  }

  @Test
  void podOfAMissingOrFailedClaimWaitsWithAReason() {
    client.resource(pod("orphan", "no-such-claim", null)).create();
    await().atMost(Duration.ofSeconds(20)).until(() -> hasEvent("orphan", "ClaimNotFound"));

    client.resource(claim("too-big", 900, "P-pod")).create();
    awaitPhase(client, "too-big", Phase.Failed);
    client.resource(pod("doomed", "too-big", null)).create();
    await().atMost(Duration.ofSeconds(20)).until(() -> hasEvent("doomed", "ClaimFailed"));
  }

  @Test
  void webhookSetsSchedulerAndTheBoundResource() {
    sliceNode(client, "hook-1", Instant.now(), h200("GPU-hook-1", 0, "P-hook"));
    client.resource(claim("hook-claim", 20, "P-hook")).create();
    awaitPhase(client, "hook-claim", Phase.Bound);
    Pod plain =
        new PodBuilder()
            .withNewMetadata()
            .withName("app")
            .withNamespace(NS)
            .addToAnnotations(SmsliceApi.CLAIM_ANNOTATION, "hook-claim")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .build();
    List<Map<String, Object>> patch = review(plain);
    assertThat(patch)
        .contains(op("/spec/schedulerName", SlicePods.SCHEDULER_NAME))
        .contains(op("/metadata/labels", Map.of(SlicePods.MANAGED_LABEL, "true")))
        .contains(
            op(
                "/spec/containers/0/resources",
                Map.of(
                    "requests", Map.of(SlicePods.SM_RESOURCE, "20"),
                    "limits", Map.of(SlicePods.SM_RESOURCE, "20"))));
  }

  @Test
  void webhookLeavesOtherPodsAloneAndWarnsForMissingClaims() {
    Pod other =
        new PodBuilder()
            .withNewMetadata()
            .withName("other")
            .withNamespace(NS)
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .endContainer()
            .endSpec()
            .build();
    Map<String, Object> response = respond(other);
    assertThat(response.get("allowed")).isEqualTo(true);
    assertThat(response).doesNotContainKey("patch");

    Pod lost =
        new PodBuilder(other)
            .editMetadata()
            .addToAnnotations(SmsliceApi.CLAIM_ANNOTATION, "missing")
            .endMetadata()
            .build();
    Map<String, Object> warned = respond(lost);
    assertThat(warned.get("warnings").toString()).contains("does not exist");
    assertThat(decode(warned)).contains(op("/spec/schedulerName", SlicePods.SCHEDULER_NAME));
  }

  private static Map<String, Object> op(String path, Object value) {
    return Map.of("op", "add", "path", path, "value", value);
  }

  private List<Map<String, Object>> review(Pod pod) {
    return decode(respond(pod));
  }

  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> decode(Map<String, Object> response) {
    assertThat(response.get("patchType")).isEqualTo("JSONPatch");
    String json =
        new String(
            Base64.getDecoder().decode((String) response.get("patch")), StandardCharsets.UTF_8);
    return client.getKubernetesSerialization().unmarshal(json, List.class);
  }

  private Map<String, Object> respond(Pod pod) {
    Map<String, Object> review =
        Map.of(
            "apiVersion", "admission.k8s.io/v1",
            "kind", "AdmissionReview",
            "request",
                Map.of(
                    "uid",
                    "req-1",
                    "kind",
                    Map.of("group", "", "version", "v1", "kind", "Pod"),
                    "operation",
                    "CREATE",
                    "namespace",
                    NS,
                    "object",
                    pod));
    String body = client.getKubernetesSerialization().asJson(review);
    Map<String, Object> out =
        given()
            .contentType("application/json")
            .body(body)
            .post("/mutate-pods")
            .then()
            .statusCode(200)
            .extract()
            .as(Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> response = (Map<String, Object>) out.get("response");
    assertThat(response.get("uid")).isEqualTo("req-1");
    return response;
  }
}
