package io.smslice.operator.it;

import static io.restassured.RestAssured.given;
import static io.smslice.operator.it.Cluster.NS;
import static io.smslice.operator.it.Cluster.awaitPhase;
import static io.smslice.operator.it.Cluster.claim;
import static io.smslice.operator.it.Cluster.h200;
import static io.smslice.operator.it.Cluster.pod;
import static io.smslice.operator.it.Cluster.podOf;
import static io.smslice.operator.it.Cluster.podOfTemplate;
import static io.smslice.operator.it.Cluster.sliceNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.operator.pods.SlicePods;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod admission webhook against the CRUD mock API server. */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = MockCluster.class)
class PodWebhookTest {
  @Inject KubernetesClient client;

  @Test
  void webhookSetsTheGateAndTheBoundResource() {
    sliceNode(client, "hook-1", Instant.now(), h200("GPU-hook-1", 0, "P-hook"));
    client.resource(claim("hook-claim", 20, "P-hook")).create();
    awaitPhase(client, "hook-claim", Phase.Bound);
    List<Map<String, Object>> patch = review(podOf("app", "hook-claim"));
    assertThat(patch)
        .contains(op("/spec/schedulingGates", List.of(Map.of("name", SlicePods.GATE))))
        .contains(op("/metadata/labels", Map.of(SlicePods.MANAGED_LABEL, "true")))
        .contains(
            op(
                "/spec/containers/0/resources",
                Map.of(
                    "requests", Map.of(SlicePods.SM_RESOURCE, "20"),
                    "limits", Map.of(SlicePods.SM_RESOURCE, "20"))));
  }

  @Test
  void webhookLeavesOtherPodsAloneAndGatesPodsOfMissingClaims() {
    Pod other = pod("other");
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
    assertThat(decode(warned))
        .contains(op("/spec/schedulingGates", List.of(Map.of("name", SlicePods.GATE))));
  }

  /** Issue 12.3: a claim created with its pods; the webhook answers at once, resource included. */
  @Test
  void podOfAClaimNotBoundYetIsGatedWithTheResourceWithoutWaiting() {
    client.resource(claim("fresh-claim", 24, "P-nowhere")).create();
    long start = System.nanoTime();
    List<Map<String, Object>> patch = review(podOf("early", "fresh-claim"));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMs).as("the webhook must not wait for the claim").isLessThan(1000);
    assertThat(patch)
        .contains(op("/spec/schedulingGates", List.of(Map.of("name", SlicePods.GATE))))
        .contains(
            op(
                "/spec/containers/0/resources",
                Map.of(
                    "requests", Map.of(SlicePods.SM_RESOURCE, "24"),
                    "limits", Map.of(SlicePods.SM_RESOURCE, "24"))));
  }

  /** Issue 12.4: the slice goes to the container the pod names, never blindly to the first. */
  @Test
  void podsTolerateTheGpuTaintsPlacementIgnoresOnceEach() {
    client.resource(claim("taint-claim", 16, "P-nowhere")).create();
    assertThat(review(podOf("untolerated", "taint-claim")))
        .contains(
            op(
                "/spec/tolerations",
                List.of(
                    Map.of("key", "nvidia.com/gpu", "operator", "Exists"),
                    Map.of("key", "smslice.io/gpu", "operator", "Exists"))));
    Pod tolerating =
        new PodBuilder(podOf("tolerating", "taint-claim"))
            .editSpec()
            .addNewToleration()
            .withKey("nvidia.com/gpu")
            .withOperator("Equal")
            .withValue("present")
            .withEffect("NoSchedule")
            .endToleration()
            .endSpec()
            .build();
    assertThat(review(tolerating))
        .contains(op("/spec/tolerations/-", Map.of("key", "smslice.io/gpu", "operator", "Exists")))
        .noneMatch(o -> String.valueOf(o.get("value")).contains("nvidia.com/gpu"));
  }

  @Test
  void aTemplateNameTooLongForItsClaimsLabelIsDenied() {
    Map<String, Object> denied = respond(podOfTemplate("long-template", "t".repeat(64)));
    assertThat(denied.get("allowed")).isEqualTo(false);
    assertThat(denied.get("status").toString())
        .contains("names a SliceClaimTemplate of 64 characters")
        .contains("may have at most 63");
  }

  @Test
  void theNamedContainerGetsTheSliceAndBadAnnotationsAreDenied() {
    client.resource(claim("side-claim", 16, "P-nowhere")).create();
    Pod withSidecar =
        new PodBuilder(podOf("sidecar-first", "side-claim"))
            .editSpec()
            .withContainers(
                new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName("proxy")
                    .withImage("envoy")
                    .build(),
                new io.fabric8.kubernetes.api.model.ContainerBuilder()
                    .withName("model")
                    .withImage("torch")
                    .build())
            .endSpec()
            .editMetadata()
            .addToAnnotations(SlicePods.CONTAINER_ANNOTATION, "model")
            .endMetadata()
            .build();
    var sm = Map.of(SlicePods.SM_RESOURCE, "16");
    assertThat(review(withSidecar))
        .contains(op("/spec/containers/1/resources", Map.of("requests", sm, "limits", sm)));

    Pod kubectlDefault =
        new PodBuilder(withSidecar)
            .editMetadata()
            .removeFromAnnotations(SlicePods.CONTAINER_ANNOTATION)
            .addToAnnotations(SlicePods.DEFAULT_CONTAINER_ANNOTATION, "model")
            .endMetadata()
            .build();
    assertThat(review(kubectlDefault))
        .contains(op("/spec/containers/1/resources", Map.of("requests", sm, "limits", sm)));

    Pod typo =
        new PodBuilder(withSidecar)
            .editMetadata()
            .addToAnnotations(SlicePods.CONTAINER_ANNOTATION, "modle")
            .endMetadata()
            .build();
    Map<String, Object> denied = respond(typo);
    assertThat(denied.get("allowed")).isEqualTo(false);
    assertThat(denied.get("status").toString()).contains("'modle'").contains("[proxy, model]");

    for (String bad : List.of("", " side-claim", "Side_Claim", "a/b")) {
      Map<String, Object> refused = respond(podOf("bad", bad));
      assertThat(refused.get("allowed")).as("claim name '%s'", bad).isEqualTo(false);
      assertThat(refused.get("status").toString())
          .contains(SmsliceApi.CLAIM_ANNOTATION)
          .contains("SliceClaim");
    }
  }

  /** Issue 12.2: a pod naming a claim template gets the template's resource and the gate. */
  @Test
  void aPodOfAClaimTemplateIsGatedWithTheTemplatesResource() {
    var template = new io.smslice.api.v1alpha1.claim.SliceClaimTemplate();
    template.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName("hook-template")
            .withNamespace(NS)
            .build());
    template.setSpec(new io.smslice.api.v1alpha1.claim.SliceClaimTemplateSpec());
    template.getSpec().setSpec(claim("x", 32, "P-nowhere").getSpec());
    client.resource(template).create();
    Pod replica =
        new PodBuilder(podOf("replica", "x"))
            .editMetadata()
            .withAnnotations(Map.of(SlicePods.TEMPLATE_ANNOTATION, "hook-template"))
            .endMetadata()
            .build();
    var sm = Map.of(SlicePods.SM_RESOURCE, "32");
    assertThat(review(replica))
        .contains(op("/spec/schedulingGates", List.of(Map.of("name", SlicePods.GATE))))
        .contains(op("/spec/containers/0/resources", Map.of("requests", sm, "limits", sm)));

    Pod both =
        new PodBuilder(podOf("both", "x"))
            .editMetadata()
            .addToAnnotations(SlicePods.TEMPLATE_ANNOTATION, "hook-template")
            .endMetadata()
            .build();
    Map<String, Object> denied = respond(both);
    assertThat(denied.get("allowed")).isEqualTo(false);
    assertThat(denied.get("status").toString()).contains("name one");
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
