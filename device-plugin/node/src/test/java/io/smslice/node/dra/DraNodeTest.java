package io.smslice.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.config.Allocation;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourceResponse;
import io.smslice.node.testing.FakeKubelet;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node process in DRA mode, assembled as NodeMain does: MIG and MPS GPUs keep their device
 * plugins, the green GPU is offered only through the ResourceSlice, and a claim the scheduler
 * allocated on it is prepared through the DRA plugin and served by the agent.
 */
@EnableKubernetesMockClient(crud = true)
class DraNodeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void greenSlicesGoThroughDraAndMigAndMpsThroughTheDevicePlugin() throws Exception {
    NodeFixture.installCrds(client);
    client
        .nodes()
        .resource(
            new NodeBuilder().withNewMetadata().withName(NodeFixture.NODE).endMetadata().build())
        .create();
    NodeFixture fixture = new NodeFixture(tmp, "dra");
    assertThat(fixture.config.allocation()).isEqualTo(Allocation.DRA);
    Instant started = Instant.now();
    try (FakeKubelet devicePlugins = new FakeKubelet(fixture.config.paths().devicePlugins());
        NodeWithAgent node =
            NodeWithAgent.start(
                fixture.config, NodeFixture.NODE, client, fixture.inventory, fixture.nvml)) {
      devicePlugins.awaitPlugin(
          fixture.config.resourceNames().mig(), started, Duration.ofSeconds(10));
      devicePlugins.awaitPlugin(
          fixture.config.resourceNames().mps(), started, Duration.ofSeconds(10));
      assertThat(devicePlugins.resources()).doesNotContain(fixture.config.resourceNames().sm());
      assertThat(node.dra()).isPresent();

      JsonNode slice = awaitSlice(NodeFixture.NODE + "-smslice.io");
      assertThat(slice.path("spec").path("devices")).hasSize(1);
      assertThat(
              slice
                  .path("spec")
                  .path("devices")
                  .get(0)
                  .path("attributes")
                  .path("uuid")
                  .path("string")
                  .asText())
          .isEqualTo(NodeFixture.GREEN.uuid());

      String uid =
          DraTestbed.claim(client, "ml", "detector", NodeFixture.NODE, "gpu-0", "16", "8Gi", null);
      try (TestKubelet kubelet =
          new TestKubelet(tmp.resolve("plugins_registry").resolve("smslice.io-reg.sock"))) {
        NodePrepareResourceResponse r = kubelet.prepareOne("ml", "detector", uid);
        assertThat(r.getError()).isEmpty();
        assertThat(node.agent().endpoint("ml", "detector")).isPresent();
        assertThat(tmp.resolve("cdi").resolve("smslice.io-" + uid + ".json")).exists();
        String gpu = "{gpu=\"" + NodeFixture.GREEN.uuid() + "\"} ";
        assertThat(node.metrics().scrape())
            .contains("smslice_node_dra_prepared_claims" + gpu + "1.0")
            .contains("smslice_node_dra_prepared_sms" + gpu + "16.0")
            .contains("smslice_node_dra_prepared_memory_bytes" + gpu + (8.0 * (1L << 30)))
            .contains("smslice_node_dra_gpu_sms" + gpu + "120.0");
      }
    }
    assertThat(tmp.resolve("plugins_registry").resolve("smslice.io-reg.sock")).doesNotExist();
  }

  private JsonNode awaitSlice(String name) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      var slice = client.genericKubernetesResources(DraDriver.RESOURCE_SLICES).withName(name).get();
      if (slice != null) {
        return JSON.valueToTree(slice);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no ResourceSlice " + name);
  }
}
