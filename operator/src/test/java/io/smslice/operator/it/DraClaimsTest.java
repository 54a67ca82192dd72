package io.smslice.operator.it;

import static io.restassured.RestAssured.given;
import static io.smslice.operator.it.Cluster.NS;
import static io.smslice.operator.it.Cluster.awaitPhase;
import static io.smslice.operator.it.Cluster.claim;
import static io.smslice.operator.it.Cluster.get;
import static io.smslice.operator.it.Cluster.podOf;
import static io.smslice.operator.it.Cluster.podOfTemplate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplateSpec;
import io.smslice.operator.dra.DraApi;
import io.smslice.operator.pods.SlicePods;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator with allocation dra against the CRUD mock API server: the tests write what the
 * kube-scheduler (status.allocation) and the node (status.devices) would write on a real cluster.
 */
@QuarkusTest
@TestProfile(DraProfile.class)
@WithKubernetesTestServer(crud = true, setup = DraMockCluster.class)
class DraClaimsTest {
  @Inject KubernetesClient client;

  private NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resourceClaims() {
    return client.genericKubernetesResources(DraApi.RESOURCE_CLAIMS).inNamespace(NS);
  }

  private GenericKubernetesResource awaitResourceClaim(String name) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> resourceClaims().withName(name).get() != null);
    return resourceClaims().withName(name).get();
  }

  private static Condition condition(SliceClaim c, String type) {
    return c.getStatus().getConditions().stream()
        .filter(x -> x.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  private SliceClaim awaitReason(String claim, String type, String reason) {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              SliceClaim c = get(client, claim);
              return c != null
                  && c.getStatus() != null
                  && c.getStatus().getConditions().stream()
                      .anyMatch(x -> x.getType().equals(type) && reason.equals(x.getReason()));
            });
    return get(client, claim);
  }

  @Test
  void aSliceClaimGetsItsResourceClaimAndReportsWhatTheSchedulerAndTheNodeWrote() {
    SliceClaim created = client.resource(claim("dra-a", 20, "H200")).create();
    GenericKubernetesResource rc = awaitResourceClaim("dra-a");

    assertThat(rc.getMetadata().getOwnerReferences().getFirst().getUid())
        .isEqualTo(created.getMetadata().getUid());
    assertThat(client.getKubernetesSerialization().asJson(rc.getAdditionalProperties().get("spec")))
        .contains("\"deviceClassName\":\"sm.smslice.io\"")
        .contains("\"sms\":\"20\"");
    assertThat(awaitReason("dra-a", "Placed", "WaitingForAllocation").getStatus().getPhase())
        .isEqualTo(Phase.Pending);

    // What the kube-scheduler writes when it schedules the first pod.
    rc.setAdditionalProperty(
        "status",
        Map.of(
            "allocation",
            Map.of(
                "devices",
                Map.of(
                    "results",
                    List.of(
                        Map.of(
                            "request", "slice",
                            "driver", "smslice.io",
                            "pool", "node-a",
                            "device", "gpu-0",
                            "shareID", "s1",
                            "consumedCapacity", Map.of("sms", "24", "memory", "0")))))));
    rc = resourceClaims().resource(rc).update();
    assertThat(condition(awaitReason("dra-a", "Placed", "Allocated"), "Ready").getReason())
        .isEqualTo("WaitingForNode");
    assertThat(get(client, "dra-a").getStatus().getPhase()).isEqualTo(Phase.Pending);

    // What the node records once it prepared the claim.
    @SuppressWarnings("unchecked")
    Map<String, Object> status =
        new java.util.HashMap<>((Map<String, Object>) rc.getAdditionalProperties().get("status"));
    status.put(
        "devices",
        List.of(
            Map.of(
                "driver", "smslice.io",
                "pool", "node-a",
                "device", "gpu-0",
                "shareID", "s1",
                "conditions",
                    List.of(Map.of("type", "Ready", "status", "True", "reason", "Prepared")),
                "data", Map.of("gpuUuid", "GPU-dra-a", "smGroups", List.of(0, 1, 2)))));
    rc.setAdditionalProperty("status", status);
    resourceClaims().resource(rc).update();

    SliceClaim bound = awaitPhase(client, "dra-a", Phase.Bound);
    assertThat(bound.getStatus().getBinding().getNode()).isEqualTo("node-a");
    assertThat(bound.getStatus().getBinding().getGpuUuid()).isEqualTo("GPU-dra-a");
    assertThat(bound.getStatus().getBinding().getSmGroups()).containsExactly(0, 1, 2);
    assertThat(bound.getStatus().getBinding().getSms()).isEqualTo(24);
    assertThat(condition(bound, "Ready").getStatus()).isEqualTo("True");
    // The node side is not told to serve it through the SliceClaim: no node label.
    var labels = bound.getMetadata().getLabels();
    assertThat(labels == null ? Map.of() : labels).doesNotContainKey(SmsliceApi.NODE_LABEL);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                client.v1().events().inNamespace(NS).list().getItems().stream()
                    .anyMatch(
                        e ->
                            e.getInvolvedObject().getName().equals("dra-a")
                                && e.getReason().equals("Serving")));
    // Counted by phase as device-plugin claims are (no other claim of this class gets Bound).
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        io.restassured.RestAssured.get("/q/metrics")
                            .then()
                            .statusCode(200)
                            .extract()
                            .asString())
                    .containsPattern("smslice_claims\\{phase=\"Bound\"} 1\\.0"));
  }

  @Test
  void aForeignResourceClaimOfTheSameNameIsReportedAndLeftAlone() {
    GenericKubernetesResource foreign = new GenericKubernetesResource();
    foreign.setApiVersion(DraApi.API_VERSION);
    foreign.setKind("ResourceClaim");
    foreign.setMetadata(new ObjectMetaBuilder().withName("dra-taken").withNamespace(NS).build());
    foreign.setAdditionalProperty("spec", Map.of("devices", Map.of()));
    resourceClaims().resource(foreign).create();
    client.resource(claim("dra-taken", 16, null)).create();

    SliceClaim c = awaitReason("dra-taken", "Placed", "ResourceClaimNameTaken");
    assertThat(c.getStatus().getPhase()).isEqualTo(Phase.Pending);
    assertThat(resourceClaims().withName("dra-taken").get().getMetadata().getOwnerReferences())
        .isNullOrEmpty();
  }

  @Test
  void aMemoryClaimStaysOnTheDevicePluginAndGetsNoResourceClaim() {
    SliceClaim mig = claim("dra-mig", null, null);
    mig.getSpec().setIsolation(Isolation.Memory);
    mig.getSpec().setMemory(new Quantity("10Gi"));
    client.resource(mig).create();

    // No SliceNode offers MIG here: the allocator (not DRA) decides, and finds no GPU for it.
    await().atMost(Duration.ofSeconds(20)).until(() -> get(client, "dra-mig").getStatus() != null);
    SliceClaim c = get(client, "dra-mig");
    assertThat(c.getStatus().getPhase()).isIn(Phase.Pending, Phase.Failed);
    assertThat(condition(c, "Placed").getReason())
        .isNotIn("WaitingForAllocation", "Allocated", "ResourceClaimNameTaken");
    assertThat(resourceClaims().withName("dra-mig").get()).isNull();
  }

  @Test
  void aSliceClaimTemplateGetsItsResourceClaimTemplate() {
    SliceClaimTemplate t = new SliceClaimTemplate();
    t.setMetadata(new ObjectMetaBuilder().withName("dra-tpl").withNamespace(NS).build());
    SliceClaimTemplateSpec ts = new SliceClaimTemplateSpec();
    SliceClaimSpec spec = claim("x", 32, null).getSpec();
    ts.setSpec(spec);
    t.setSpec(ts);
    SliceClaimTemplate made = client.resource(t).create();
    var templates =
        client.genericKubernetesResources(DraApi.RESOURCE_CLAIM_TEMPLATES).inNamespace(NS);

    await().atMost(Duration.ofSeconds(20)).until(() -> templates.withName("dra-tpl").get() != null);
    GenericKubernetesResource rct = templates.withName("dra-tpl").get();
    assertThat(rct.getMetadata().getOwnerReferences().getFirst().getUid())
        .isEqualTo(made.getMetadata().getUid());
    assertThat(
            client.getKubernetesSerialization().asJson(rct.getAdditionalProperties().get("spec")))
        .contains("\"sms\":\"32\"");
  }

  @Test
  void theWebhookGivesAPodTheResourceClaimInsteadOfTheGateAndTheResource() {
    SliceClaim c = claim("dra-hook", 16, null);
    var selector = new io.smslice.api.v1alpha1.claim.GpuSelector();
    selector.setNodeLabels(Map.of("pool", "gpu"));
    c.getSpec().setSelector(selector);
    client.resource(c).create();
    List<Map<String, Object>> patch = review(podOf("app", "dra-hook"), "allowed");
    assertThat(patch)
        .contains(
            op(
                "/spec/resourceClaims",
                List.of(Map.of("name", "smslice", "resourceClaimName", "dra-hook"))))
        .contains(
            op(
                "/spec/containers/0/resources",
                Map.of("claims", List.of(Map.of("name", "smslice")))))
        .contains(op("/spec/nodeSelector", Map.of("pool", "gpu")));
    assertThat(patch)
        .noneMatch(o -> o.get("path").toString().startsWith("/spec/schedulingGates"))
        .noneMatch(o -> String.valueOf(o.get("value")).contains(SlicePods.SM_RESOURCE))
        .noneMatch(o -> o.get("path").toString().startsWith("/metadata/labels"));
  }

  @Test
  void thePodOfATemplateGetsTheResourceClaimTemplate() {
    assertThat(review(podOfTemplate("tpl-app", "dra-no-such-template"), "allowed"))
        .contains(
            op(
                "/spec/resourceClaims",
                List.of(
                    Map.of(
                        "name", "smslice", "resourceClaimTemplateName", "dra-no-such-template"))));
  }

  @Test
  void aPodThatAlreadyHasAClaimNamedSmsliceIsDenied() {
    Pod pod =
        new PodBuilder(podOf("clash", "dra-clash"))
            .editSpec()
            .addNewResourceClaim()
            .withName("smslice")
            .withResourceClaimName("mine")
            .endResourceClaim()
            .endSpec()
            .build();

    Map<String, Object> response = respond(pod);
    assertThat(response.get("allowed")).isEqualTo(false);
    assertThat(response.toString()).contains("already has a resource claim named smslice");
  }

  private static Map<String, Object> op(String path, Object value) {
    return Map.of("op", "add", "path", path, "value", value);
  }

  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> review(Pod pod, String expect) {
    Map<String, Object> response = respond(pod);
    assertThat(response.get(expect)).isEqualTo(true);
    String json =
        new String(
            Base64.getDecoder().decode((String) response.get("patch")), StandardCharsets.UTF_8);
    return client.getKubernetesSerialization().unmarshal(json, List.class);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> respond(Pod pod) {
    Map<String, Object> review =
        Map.of(
            "apiVersion", "admission.k8s.io/v1",
            "kind", "AdmissionReview",
            "request",
                Map.of(
                    "uid",
                    "req-dra",
                    "kind",
                    Map.of("group", "", "version", "v1", "kind", "Pod"),
                    "operation",
                    "CREATE",
                    "namespace",
                    NS,
                    "object",
                    pod));
    Map<String, Object> out =
        given()
            .contentType("application/json")
            .body(client.getKubernetesSerialization().asJson(review))
            .post("/mutate-pods")
            .then()
            .statusCode(200)
            .extract()
            .as(Map.class);
    return (Map<String, Object>) out.get("response");
  }
}
