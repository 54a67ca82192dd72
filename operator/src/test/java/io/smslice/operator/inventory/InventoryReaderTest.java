package io.smslice.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.node.GpuHealth;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.api.v1alpha1.node.SliceNodeStatus;
import io.smslice.api.v1alpha1.node.SmGroup;
import io.smslice.operator.placement.Mode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InventoryReaderTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  private static SliceNode node(String name, String heartbeat, GpuHealth health) {
    NodeGpu g = new NodeGpu();
    g.setUuid("GPU-" + name);
    g.setMode(GpuMode.Green);
    g.setSmCount(16);
    g.setSmGroups(List.of(new SmGroup(0, 8), new SmGroup(1, 8)));
    g.setMemory(new Quantity("32Gi"));
    g.setHealth(health);
    SliceNodeStatus s = new SliceNodeStatus();
    s.setGpus(List.of(g));
    s.setHeartbeat(heartbeat);
    SliceNode sn = new SliceNode();
    sn.setMetadata(new ObjectMetaBuilder().withName(name).build());
    sn.setStatus(s);
    return sn;
  }

  @Test
  void staleOrUnparseableHeartbeatsLoseTheNode() {
    var nodes =
        List.of(
            node("fresh", NOW.minusSeconds(5).toString(), GpuHealth.Healthy),
            node("stale", NOW.minusSeconds(120).toString(), GpuHealth.Healthy),
            node("garbled", "yesterday", GpuHealth.Healthy),
            node("sick", NOW.toString(), GpuHealth.Unhealthy));
    var inventory =
        InventoryReader.read(
            nodes,
            Map.of("fresh", new NodeFacts(Map.of("zone", "a"), null)),
            NOW,
            Duration.ofSeconds(60));
    assertThat(inventory).extracting(n -> n.name()).containsExactly("fresh", "sick");
    var fresh = inventory.getFirst();
    assertThat(fresh.labels()).containsEntry("zone", "a");
    var gpu = fresh.gpus().getFirst();
    assertThat(gpu.mode()).isEqualTo(Mode.GREEN);
    assertThat(gpu.memoryBytes()).isEqualTo(32L << 30);
    assertThat(gpu.healthy()).isTrue();
    assertThat(inventory.get(1).gpus().getFirst().healthy()).isFalse();
  }
}
