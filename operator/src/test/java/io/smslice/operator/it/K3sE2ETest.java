package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.operator.pods.SlicePods;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The claim -> Bound -> gate lifted -> pod scheduled path on a real API server and kube-scheduler
 * (k3s), which evaluate the CRDs' schema, defaults and CEL rules, the rules for changing a gated
 * pod's node affinity, and the extended resource's fit. The node's smslice.io/sm capacity is
 * written by the test, as the device plugin would advertise it. Runs where Docker exists; skipped
 * elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class K3sE2ETest {
  @Container
  static final K3sContainer K3S =
      new K3sContainer(DockerImageName.parse("rancher/k3s:v1.33.5-k3s1"));

  @Test
  void claimIsPlacedAndItsPodBoundOnARealApiServer() {
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(K3S.getKubeConfigYaml()))
            .build()) {
      Cluster.installCrds(client);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> client.resources(SliceClaim.class).inNamespace("default").list() != null);
      client
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .create();
      String node = client.nodes().list().getItems().getFirst().getMetadata().getName();
      Cluster.sliceNode(client, node, Instant.now(), Cluster.h200("GPU-k3s-0", 0, "NVIDIA H200"));
      client
          .nodes()
          .withName(node)
          .editStatus(
              n -> {
                n.getStatus().getCapacity().put(SlicePods.SM_RESOURCE, new Quantity("132"));
                n.getStatus().getAllocatable().put(SlicePods.SM_RESOURCE, new Quantity("132"));
                return n;
              });
      try (PlainOperator operator = new PlainOperator(client, true)) {
        var claim = Cluster.claim("e2e", 16, null);
        claim.getSpec().setIsolation(null);
        claim.getSpec().setPriority(null);
        client.resource(claim).create();
        SliceClaim bound = Cluster.awaitPhase(client, "e2e", Phase.Bound);
        assertThat(bound.getStatus().getBinding().getNode()).isEqualTo(node);

        var sm = Map.of(SlicePods.SM_RESOURCE, new Quantity("16"));
        Pod pod =
            new PodBuilder()
                .withNewMetadata()
                .withName("e2e-pod")
                .withNamespace(NS)
                .addToAnnotations(SmsliceApi.CLAIM_ANNOTATION, "e2e")
                .addToLabels(SlicePods.MANAGED_LABEL, "true")
                .endMetadata()
                .withNewSpec()
                .addNewSchedulingGate(SlicePods.GATE)
                .addNewContainer()
                .withName("main")
                .withImage("busybox")
                .withNewResources()
                .withRequests(sm)
                .withLimits(sm)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
        client.resource(pod).create();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    node.equals(
                        client
                            .pods()
                            .inNamespace(NS)
                            .withName("e2e-pod")
                            .get()
                            .getSpec()
                            .getNodeName()));

        client.resources(SliceClaim.class).inNamespace(NS).withName("e2e").delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> Cluster.get(client, "e2e") == null);
      }
    }
  }
}
