package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The demo's API server: the behaviours added to fabric8's mock, and the examples it is given. */
class MockClusterTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();
  private MockCluster cluster;
  private KubernetesClient client;

  @BeforeEach
  void start() throws Exception {
    cluster = MockCluster.start();
    client = cluster.client();
    cluster.registerCrds(REPOSITORY.resolve("crds"));
    cluster.createNode("node-a");
    for (String name : List.of("p1", "p2")) {
      client
          .pods()
          .inNamespace("default")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("i")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void aBindingSetsTheNodeAndASecondOneElsewhereIsRefused() throws Exception {
    assertThat(bind("p1", "node-a").code()).isEqualTo(201);
    assertThat(client.pods().inNamespace("default").withName("p1").get().getSpec().getNodeName())
        .isEqualTo("node-a");
    assertThat(bind("p1", "node-a").code()).as("same node again").isEqualTo(201);
    assertThat(bind("p1", "node-b").code()).isEqualTo(409);
    assertThat(bind("missing", "node-a").code()).isEqualTo(404);
  }

  @Test
  void podsAreListedByNodeName() throws Exception {
    bind("p2", "node-a");
    List<Pod> onNode =
        client.pods().inAnyNamespace().withField("spec.nodeName", "node-a").list().getItems();
    assertThat(onNode).extracting(p -> p.getMetadata().getName()).containsExactly("p2");
    assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(2);
  }

  @Test
  void theExamplesAreClaimsAndOnePodPerWorkload() throws Exception {
    client.resources(SliceClaim.class);
    ExampleObjects examples =
        ExampleObjects.load(REPOSITORY.resolve("examples"), client.getKubernetesSerialization());
    assertThat(examples.claims())
        .extracting(c -> c.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "detector",
            "batch",
            "model-a",
            "model-b",
            "model-c",
            "inference",
            "neighbour",
            "trainer",
            "untrusted-tenant");
    assertThat(examples.pods())
        .extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "detector",
            "batch",
            "model-a",
            "model-b",
            "model-c",
            "voter",
            "inference",
            "neighbour",
            "trainer",
            "untrusted-tenant");
    Pod detector =
        examples.pods().stream()
            .filter(p -> p.getMetadata().getName().equals("detector"))
            .findFirst()
            .orElseThrow();
    assertThat(detector.getMetadata().getAnnotations())
        .containsEntry("smslice.io/claim", "detector");
    assertThat(detector.getSpec().getContainers().getFirst().getArgs()).containsExactly("detector");
    assertThat(examples.services())
        .extracting(s -> s.getMetadata().getName())
        .containsExactly("voter");
    assertThat(examples.skipped()).isEmpty();
  }

  private HttpResponse<String> bind(String pod, String node) throws Exception {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\""
            + pod
            + "\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\""
            + node
            + "\"}}";
    var http = client.getHttpClient();
    return http.sendAsync(
            http.newHttpRequestBuilder()
                .uri(cluster.url() + "/api/v1/namespaces/default/pods/" + pod + "/binding")
                .post("application/json", body)
                .build(),
            String.class)
        .get();
  }
}
