package io.smslice.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.testing.FakeCluster;
import org.junit.jupiter.api.Test;

/**
 * The API reads behind Allocate. The mock server in expectation mode, because its CRUD mode
 * evaluates no field selector but metadata.name and metadata.namespace.
 */
@EnableKubernetesMockClient
class KubernetesClusterViewTest {
  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  void listsPodsWithANodeFieldSelectorAndKeepsOnlyThatNodes() {
    server
        .expect()
        .get()
        .withPath("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1")
        .andReturn(
            200,
            new PodListBuilder()
                .addToItems(FakeCluster.pod("a", "here", "n1", "c", "smslice.io/sm", 8, null))
                .addToItems(FakeCluster.pod("b", "there", "n2", "c", "smslice.io/sm", 8, null))
                .build())
        .once();
    assertThat(new KubernetesClusterView(client).podsOnNode("n1"))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("here");
  }

  @Test
  void readsAClaimByNamespaceAndName() {
    SliceClaim claim =
        FakeCluster.boundClaim("a", "c", "n1", "GPU-1", GpuMode.Green, 8, null, null);
    server
        .expect()
        .get()
        .withPath("/apis/smslice.io/v1alpha1/namespaces/a/sliceclaims/c")
        .andReturn(200, claim)
        .once();
    KubernetesClusterView view = new KubernetesClusterView(client);
    assertThat(view.claim("a", "c")).map(c -> c.getSpec().getSms()).hasValue(8);
    assertThat(view.claim("a", "none")).isEmpty();
  }
}
