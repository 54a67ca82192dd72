package io.smslice.node.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.NodeFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Under DRA a claim's events go on its ResourceClaim and the pods on this node that use it. */
@EnableKubernetesMockClient(crud = true)
class ResourceClaimTargetsTest {
  KubernetesClient client;

  @Test
  void theResourceClaimWithItsUidAndThePodsThatUseItByNameOrFromATemplate() {
    String uid =
        DraTestbed.claim(client, "batch", "trainer", NodeFixture.NODE, "gpu-0", "48", null, null);
    FakeCluster cluster = new FakeCluster();
    Pod named = pod("trainer-0", "Running");
    named
        .getSpec()
        .setResourceClaims(
            List.of(
                new PodResourceClaimBuilder()
                    .withName("slice")
                    .withResourceClaimName("trainer")
                    .build()));
    cluster.addPod(named);
    Pod fromTemplate = pod("trainer-1", "Running");
    fromTemplate
        .getStatus()
        .setResourceClaimStatuses(
            List.of(
                new PodResourceClaimStatusBuilder()
                    .withName("slice")
                    .withResourceClaimName("trainer")
                    .build()));
    cluster.addPod(fromTemplate);
    Pod done = pod("trainer-old", "Succeeded");
    done.getSpec().setResourceClaims(named.getSpec().getResourceClaims());
    cluster.addPod(done);
    cluster.addPod(pod("other", "Running"));

    var targets =
        new ResourceClaimTargets(
                new ResourceClaimApi(client, NodeFixture.NODE), cluster, NodeFixture.NODE)
            .of("batch", "trainer");

    assertThat(targets.keySet())
        .containsExactlyInAnyOrder(
            "claim batch/trainer", "pod batch/trainer-0", "pod batch/trainer-1");
    var claim = targets.get("claim batch/trainer");
    assertThat(claim.getKind()).isEqualTo("ResourceClaim");
    assertThat(claim.getApiVersion()).isEqualTo("resource.k8s.io/v1");
    assertThat(claim.getUid()).isEqualTo(uid);
  }

  private static Pod pod(String name, String phase) {
    Pod p =
        FakeCluster.pod("batch", name, NodeFixture.NODE, null, "cpu", 1, "2026-12-02T01:00:00Z");
    p.getStatus().setPhase(phase);
    return p;
  }
}
