package io.smslice.operator.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.operator.it.Cluster;
import io.smslice.operator.placement.Gpus;
import io.smslice.operator.placement.NodeInventory;
import io.smslice.operator.placement.PlacementEngine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a fresh operator reads the ledgers and claims back (docs/placement.md, "Restarts and two
 * writers"): of two entries that overlap, the one of higher priority, then the older claim, keeps
 * its slice; a Bound claim without an entry is taken from its status and written to the ledger; an
 * entry whose claim is gone is removed. The ledger then holds exactly what the engine holds.
 */
@EnableKubernetesMockClient(crud = true)
class LedgerLoadTest {
  private static final String GPU = "GPU-n1-0";

  KubernetesClient client;

  private static Binding groups(Integer... ids) {
    Binding b = new Binding();
    b.setNode("n1");
    b.setGpuUuid(GPU);
    b.setMode(GpuMode.Green);
    b.setSmGroups(new ArrayList<>(List.of(ids)));
    b.setSms(8 * ids.length);
    return b;
  }

  private static SliceClaim claim(String name, Priority priority, String created) {
    SliceClaim c = Cluster.claim(name, 16, null);
    c.getSpec().setPriority(priority);
    c.getMetadata().setCreationTimestamp(created);
    return c;
  }

  private static SliceClaim bound(SliceClaim c, Binding b) {
    SliceClaimStatus s = new SliceClaimStatus();
    s.setPhase(Phase.Bound);
    s.setBinding(b);
    c.setStatus(s);
    return c;
  }

  @Test
  void overlapsGoToPriorityThenAgeStatusOnlyClaimsAreKeptAndOrphansRemoved() {
    String ns = Cluster.NS;
    NodeLedger ledger = new NodeLedger(client, "ops");
    Map<String, Binding> entries = new HashMap<>();
    entries.put(ns + "/old", groups(0, 1));
    entries.put(ns + "/young", groups(1, 2)); // overlaps old; created later
    entries.put(ns + "/urgent", groups(3, 4)); // LatencyCritical, created last
    entries.put(ns + "/elder", groups(4, 5)); // BestEffort, older than urgent; overlaps it
    entries.put(ns + "/gone", groups(8, 9)); // its claim no longer exists
    assertThat(ledger.write(ledger.read("n1"), entries)).isTrue();
    List<SliceClaim> claims =
        List.of(
            claim("young", Priority.Standard, "2026-01-02T00:00:00Z"),
            claim("old", Priority.Standard, "2026-01-01T00:00:00Z"),
            claim("elder", Priority.BestEffort, "2025-06-01T00:00:00Z"),
            claim("urgent", Priority.LatencyCritical, "2026-01-03T00:00:00Z"),
            bound(claim("unrecorded", Priority.Standard, "2026-01-04T00:00:00Z"), groups(10, 11)));
    PlacementEngine engine =
        new PlacementEngine(
            List.of(new NodeInventory("n1", Map.of(), List.of(Gpus.h200("n1", 0)))));
    Map<String, String> lost = new HashMap<>();

    Map<String, String> nodeOf = LedgerLoad.load(engine, ledger, claims, lost);

    List<String> kept = List.of(ns + "/old", ns + "/urgent", ns + "/unrecorded");
    assertThat(engine.claims()).containsExactlyInAnyOrderElementsOf(kept);
    assertThat(nodeOf).containsOnlyKeys(kept);
    assertThat(lost).containsOnlyKeys(ns + "/young", ns + "/elder");
    assertThat(engine.placementOf(ns + "/unrecorded").orElseThrow().groups())
        .containsExactly(10, 11);
    Map<String, Binding> now = ledger.read("n1").bindings();
    assertThat(now).containsOnlyKeys(kept);
    assertThat(now.get(ns + "/old").getSmGroups()).containsExactly(0, 1);
    assertThat(now.get(ns + "/urgent").getSmGroups()).containsExactly(3, 4);
    assertThat(now.get(ns + "/unrecorded").getSmGroups()).containsExactly(10, 11);
  }
}
