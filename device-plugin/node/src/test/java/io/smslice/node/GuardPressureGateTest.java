package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.Agent;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.nvml.GpuActivity;
import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.NodeFixture;
import io.smslice.protocol.GuardLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVML pressure gate as NodeWithAgent wires it ({@code transparent.guard.onlyUnderPressure}): a
 * GPU that latency-critical and best-effort claims share gets its guard on only while NVML shows
 * pressure, and off again {@code pressureHoldSeconds} after the pressure ends.
 */
@EnableKubernetesMockClient(crud = true)
class GuardPressureGateTest {
  private static final String GPU = NodeFixture.GREEN.uuid();
  private static final Duration HOLD = Duration.ofSeconds(3);
  private static final Duration SAMPLE_PERIOD = Duration.ofSeconds(1);
  private static final String PRESSURE_METRIC = "smslice_node_guard_pressure{gpu=\"" + GPU + "\"} ";

  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void theGuardIsOnWhileNvmlShowsPressureAndOffTheHoldAfterIt() throws Exception {
    NodeFixture.installCrds(client);
    client
        .nodes()
        .resource(
            new NodeBuilder().withNewMetadata().withName(NodeFixture.NODE).endMetadata().build())
        .create();
    NodeFixture fixture = new NodeFixture(tmp);
    NodeConfig config =
        fixture.transparentConfig(
            Map.of(
                "onlyUnderPressure",
                true,
                "memoryBusyPercent",
                50,
                "pressureHoldSeconds",
                HOLD.toSeconds()));
    try (NodeWithAgent node =
        NodeWithAgent.start(config, NodeFixture.NODE, client, fixture.inventory, fixture.nvml)) {
      bind("det", List.of(0, 1), Priority.LatencyCritical);
      bind("batch", List.of(2, 3), Priority.BestEffort);
      Path guard = Agent.guardFile(config.transparent().mpsShm(), GPU);
      await(
          () ->
              node.agent().claimStatuses().stream().filter(s -> s.serving()).count() == 2
                  && Files.exists(guard),
          "both claims served");
      Thread.sleep(SAMPLE_PERIOD.multipliedBy(2).toMillis());
      assertThat(enabled(guard)).as("shared, but no pressure").isFalse();

      fixture.nvml.setActivity(GPU, new GpuActivity(1980, 400_000, 0, 80));
      await(() -> enabled(guard), "the guard on under pressure");
      assertThat(node.metrics().scrape()).contains(PRESSURE_METRIC + "1.0");

      fixture.nvml.setActivity(GPU, SimulatedNvml.NOMINAL);
      long ended = System.nanoTime();
      await(() -> !enabled(guard), "the guard off after the hold");
      // The last sample that showed pressure was at most one period before it ended.
      assertThat(Duration.ofNanos(System.nanoTime() - ended))
          .isGreaterThanOrEqualTo(HOLD.minus(SAMPLE_PERIOD));
      assertThat(node.metrics().scrape()).contains(PRESSURE_METRIC + "0.0");
    }
  }

  private void bind(String name, List<Integer> groups, Priority priority) {
    SliceClaim claim =
        FakeCluster.boundClaim("ml", name, NodeFixture.NODE, GPU, GpuMode.Green, 16, "1Gi", null);
    claim.getSpec().setPriority(priority);
    claim.getStatus().getBinding().setSmGroups(groups);
    claim.getMetadata().setLabels(Map.of(SmsliceApi.NODE_LABEL, NodeFixture.NODE));
    var claims = client.resources(SliceClaim.class).inNamespace("ml");
    SliceClaim created = claims.resource(claim).create();
    created.setStatus(claim.getStatus());
    claims.resource(created).updateStatus();
  }

  private static boolean enabled(Path guard) {
    try {
      return ByteBuffer.wrap(Files.readAllBytes(guard))
              .order(ByteOrder.nativeOrder())
              .getInt((int) GuardLayout.ENABLED_OFFSET)
          == 1;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
