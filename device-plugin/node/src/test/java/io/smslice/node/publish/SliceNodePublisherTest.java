package io.smslice.node.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.gpu.GpuDevice;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.TenantProcess;
import io.smslice.node.discovery.DiscoveredGpu;
import io.smslice.node.discovery.NodeGpus;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.testing.MutableClock;
import io.smslice.node.testing.NodeFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class SliceNodePublisherTest {
  private static final String GREEN_UUID = NodeFixture.GREEN.uuid();
  KubernetesClient client;

  private static DiscoveredGpu green() {
    GpuDevice d = NodeFixture.GREEN;
    return new DiscoveredGpu(
        0,
        d.uuid(),
        d.product(),
        GpuMode.Green,
        d.memoryBytes(),
        d.smCount(),
        8,
        8,
        d.split(),
        List.of(),
        0,
        null);
  }

  @Test
  void createsTheSliceNodeOwnedByTheNodeAndKeepsItsStatusCurrent() throws Exception {
    NodeFixture.installCrds(client);
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    AtomicReference<GpuCondition> condition = new AtomicReference<>(GpuCondition.HEALTHY);
    MutableClock clock = new MutableClock(Instant.parse("2026-11-30T03:00:00Z"));
    AtomicReference<List<ClaimState>> claims =
        new AtomicReference<>(
            List.of(
                new ClaimState(
                    "ml",
                    "detector",
                    GREEN_UUID,
                    List.of(0, 1),
                    true,
                    null,
                    List.of(
                        new TenantProcess(4101, "c0ffee", "python3"),
                        new TenantProcess(4102, "c0ffee", "python3")))));
    NodeMetrics metrics = new NodeMetrics();
    SliceNodePublisher publisher =
        new SliceNodePublisher(
            client,
            "n1",
            "0.1.0",
            "simulated",
            () -> List.of(NodeGpus.toApi(green(), condition.get())),
            () -> ServedClaims.toApi(claims.get()),
            Duration.ofMinutes(5),
            metrics,
            clock);

    SliceNode first = publisher.publish();
    SliceNode stored = client.resources(SliceNode.class).withName("n1").get();
    assertThat(stored.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind()).isEqualTo("Node"));
    assertThat(stored.getStatus().getAgentVersion()).isEqualTo("0.1.0");
    assertThat(stored.getStatus().getBackend()).isEqualTo("simulated");
    assertThat(stored.getStatus().getHeartbeat()).isEqualTo("2026-11-30T03:00:00Z");
    NodeGpu gpu = stored.getStatus().getGpus().getFirst();
    assertThat(gpu.getSmCount()).isEqualTo(132);
    assertThat(gpu.getSmGroups()).hasSize(16);
    assertThat(gpu.getMemory().toString()).isEqualTo("144384Mi");
    assertThat(gpu.getHealth()).isEqualTo(GpuHealth.Healthy);
    assertThat(stored.getStatus().getClaims())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getNamespace() + "/" + c.getName()).isEqualTo("ml/detector");
              assertThat(c.getGpuUuid()).isEqualTo(GREEN_UUID);
              assertThat(c.isServing()).isTrue();
              assertThat(c.getMessage()).isNull();
              assertThat(c.getTransparentProcesses()).isEqualTo(2);
            });

    clock.now = Instant.parse("2026-11-30T03:00:30Z");
    condition.set(GpuCondition.unhealthy("row remapping failed; the GPU needs service"));
    claims.set(
        List.of(
            new ClaimState(
                "ml",
                "detector",
                GREEN_UUID,
                List.of(0, 1),
                false,
                "worker did not start: exit 1",
                List.of())));
    publisher.publish();
    stored = client.resources(SliceNode.class).withName("n1").get();
    assertThat(stored.getStatus().getHeartbeat()).isEqualTo("2026-11-30T03:00:30Z");
    assertThat(stored.getStatus().getGpus().getFirst().getHealth()).isEqualTo(GpuHealth.Unhealthy);
    assertThat(stored.getStatus().getGpus().getFirst().getHealthReason()).contains("row remapping");
    assertThat(stored.getStatus().getClaims())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.isServing()).isFalse();
              assertThat(c.getMessage()).isEqualTo("worker did not start: exit 1");
              assertThat(c.getTransparentProcesses()).isZero();
            });
    assertThat(stored.getMetadata().getUid()).isEqualTo(first.getMetadata().getUid());
    assertThat(metrics.counter("smslice_node_slicenode_updates_total", "result=\"ok\""))
        .isEqualTo(2);
  }
}
