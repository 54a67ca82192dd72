package io.smslice.node.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.dra.DraGpu;
import io.smslice.node.dra.DraTestbedGpus;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.metrics.NodeMetrics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class ResourceSlicePublisherTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  KubernetesClient client;

  private final DraGpu gpu0 =
      DraTestbedGpus.draGpu(SimulatedBackend.h200(2, "n1").devices().get(0));
  private final DraGpu gpu1 =
      DraTestbedGpus.draGpu(SimulatedBackend.h200(2, "n1").devices().get(1));

  @Test
  void publishesOneSliceOfTheNodesGreenGpusAndKeepsItCurrent() {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    AtomicReference<GpuCondition> health1 = new AtomicReference<>(GpuCondition.HEALTHY);
    AtomicBoolean mps = new AtomicBoolean(false);
    NodeMetrics metrics = new NodeMetrics();
    ResourceSlicePublisher publisher =
        new ResourceSlicePublisher(
            client,
            "n1",
            () ->
                List.of(
                    new NodeResourceSlice.GpuState(gpu0, GpuCondition.HEALTHY, mps.get()),
                    new NodeResourceSlice.GpuState(gpu1, health1.get(), false)),
            Duration.ofHours(1),
            metrics);

    assertThat(publisher.publish()).isTrue();
    JsonNode slice = live(publisher);
    assertThat(slice.path("metadata").path("name").asText()).isEqualTo("n1-smslice.io");
    assertThat(slice.path("metadata").path("ownerReferences").get(0).path("kind").asText())
        .isEqualTo("Node");
    JsonNode spec = slice.path("spec");
    assertThat(spec.path("driver").asText()).isEqualTo("smslice.io");
    assertThat(spec.path("nodeName").asText()).isEqualTo("n1");
    assertThat(spec.path("pool").path("name").asText()).isEqualTo("n1");
    assertThat(spec.path("pool").path("generation").asLong()).isEqualTo(1);
    assertThat(spec.path("pool").path("resourceSliceCount").asLong()).isEqualTo(1);
    JsonNode d = spec.path("devices").get(0);
    assertThat(d.path("name").asText()).isEqualTo("gpu-0");
    assertThat(d.path("allowMultipleAllocations").asBoolean()).isTrue();
    assertThat(d.path("attributes").path("uuid").path("string").asText()).isEqualTo(gpu0.uuid());
    assertThat(d.path("attributes").path("smCount").path("int").asInt()).isEqualTo(120);
    assertThat(d.path("attributes").path("smGroupSize").path("int").asInt()).isEqualTo(8);
    assertThat(d.path("attributes").path("smGroups").path("int").asInt()).isEqualTo(15);
    assertThat(d.path("attributes").path("mode").path("string").asText()).isEqualTo("green");
    assertThat(d.path("attributes").path("mps").path("bool").asBoolean()).isFalse();
    JsonNode sms = d.path("capacity").path("sms");
    assertThat(sms.path("value").asText()).isEqualTo("120");
    assertThat(sms.path("requestPolicy").path("default").asText()).isEqualTo("8");
    assertThat(sms.path("requestPolicy").path("validRange").toString())
        .isEqualTo("{\"min\":\"8\",\"max\":\"120\",\"step\":\"8\"}");
    JsonNode memory = d.path("capacity").path("memory");
    assertThat(memory.path("value").asLong()).isEqualTo(141L << 30);
    assertThat(memory.path("requestPolicy").path("validRange").path("step").asText())
        .isEqualTo("1Mi");
    assertThat(d.has("taints")).isFalse();

    assertThat(publisher.publish()).as("nothing changed").isFalse();

    health1.set(GpuCondition.unhealthy("Xid 79: GPU has fallen off the bus"));
    mps.set(true);
    assertThat(publisher.publish()).isTrue();
    spec = live(publisher).path("spec");
    assertThat(spec.path("pool").path("generation").asLong()).isEqualTo(2);
    assertThat(spec.path("devices").get(0).path("attributes").path("mps").path("bool").asBoolean())
        .isTrue();
    JsonNode taint = spec.path("devices").get(1).path("taints").get(0);
    assertThat(taint.path("key").asText()).isEqualTo("smslice.io/unhealthy");
    assertThat(taint.path("effect").asText()).isEqualTo("NoSchedule");
    assertThat(taint.path("value").asText()).isEqualTo("Xid-79-GPU-has-fallen-off-the-bus");

    health1.set(GpuCondition.HEALTHY);
    assertThat(publisher.publish()).isTrue();
    assertThat(live(publisher).path("spec").path("devices").get(1).has("taints")).isFalse();
    assertThat(metrics.counter("smslice_node_resourceslice_updates_total", "result=\"updated\""))
        .isEqualTo(2);

    client.genericKubernetesResources(DraDriver.RESOURCE_SLICES).withName("n1-smslice.io").delete();
    assertThat(publisher.publish()).as("made again when deleted").isTrue();
  }

  @Test
  void quantitiesTheApiServerRewritesCountAsUnchanged() throws Exception {
    JsonNode ours =
        NodeResourceSlice.spec(
            "n1", 4, List.of(new NodeResourceSlice.GpuState(gpu0, GpuCondition.HEALTHY, false)));
    String rewritten =
        ours.toString()
            .replace("\"" + (141L << 30) + "\"", "\"141Gi\"")
            .replace("\"generation\":4", "\"generation\":9");
    assertThat(ResourceSlicePublisher.comparable(JSON.readTree(rewritten)))
        .isEqualTo(ResourceSlicePublisher.comparable(ours));
  }

  @Test
  void longNodeNamesGiveAValidSliceName() {
    String name = NodeResourceSlice.name("n".repeat(250));
    assertThat(name).hasSizeLessThanOrEqualTo(253).endsWith("-smslice.io");
    assertThat(NodeResourceSlice.taintValue("  ")).isEqualTo("unhealthy");
    assertThat(NodeResourceSlice.taintValue("x".repeat(100))).hasSize(63);
  }

  private JsonNode live(ResourceSlicePublisher publisher) {
    return JSON.valueToTree(
        client
            .genericKubernetesResources(DraDriver.RESOURCE_SLICES)
            .withName(publisher.sliceName())
            .get());
  }
}
