package io.smslice.operator.it;

import static io.smslice.operator.it.Cluster.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.time.Duration;
import java.time.Instant;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 12.5: a claim whose status cannot be written (every write answered 409) holds no slice: the
 * GPU it was placed on stays free for the next claim, which is Bound.
 */
@EnableKubernetesMockClient(crud = true)
class StatusWriteConflictTest {
  KubernetesClient client;
  KubernetesMockServer server;

  @Test
  void aSliceWhoseStatusWriteFailsIsGivenBack() {
    Cluster.installCrds(client);
    Cluster.sliceNode(client, "cf-1", Instant.now(), Cluster.h200("GPU-cf-0", 0, "P-cf"));
    server
        .expect()
        .put()
        .withPath("/apis/smslice.io/v1alpha1/namespaces/" + NS + "/sliceclaims/stuck/status")
        .andReturn(
            409,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"reason\":\"Conflict\",\"code\":409}")
        .always();
    try (PlainOperator operator = new PlainOperator(client)) {
      client.resource(Cluster.claim("stuck", 132, "P-cf")).create();
      Awaitility.await().pollDelay(Duration.ofMillis(1500)).until(() -> true);
      client.resource(Cluster.claim("next", 132, "P-cf")).create();
      SliceClaim next = Cluster.awaitPhase(client, "next", Phase.Bound);
      assertThat(next.getStatus().getBinding().getGpuUuid()).isEqualTo("GPU-cf-0");
      SliceClaim stuck = Cluster.get(client, "stuck");
      assertThat(stuck.getStatus() == null || stuck.getStatus().getBinding() == null).isTrue();
    }
  }
}
