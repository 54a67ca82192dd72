package io.smslice.operator.claim;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.operator.placement.Placement;
import io.smslice.operator.placement.PlacementEngine;
import io.smslice.operator.placement.Request;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Fills a fresh engine from the API: the node ledgers, read first, and then a fresh list of claims
 * (so every ledger entry belongs to a claim the list can show). A claim's slice is its ledger
 * entry; a claim Bound by an operator that kept no ledger is taken from its status and written to
 * the ledger. Entries whose claim is gone, that lost to another, or that are superseded are
 * removed, so the ledgers and the engine agree when this returns.
 */
final class LedgerLoad {
  private LedgerLoad() {}

  /** The node each committed claim's ledger entry is on, by claim key. */
  static Map<String, String> load(
      PlacementEngine engine,
      NodeLedger ledger,
      List<SliceClaim> claims,
      Map<String, String> lostSlices) {
    Map<String, NodeLedger.Snapshot> snaps = ledger.readAll();
    Map<String, SliceClaim> byKey = new HashMap<>();
    claims.forEach(c -> byKey.put(ClaimRequests.key(c), c));
    Map<String, List<Map.Entry<String, Binding>>> entriesOf = new HashMap<>();
    snaps.forEach(
        (node, snap) ->
            snap.bindings()
                .forEach(
                    (claim, b) ->
                        entriesOf
                            .computeIfAbsent(claim, k -> new java.util.ArrayList<>())
                            .add(Map.entry(node, b))));
    Map<String, Binding> chosen = new LinkedHashMap<>();
    for (SliceClaim c : claims) {
      String key = ClaimRequests.key(c);
      Binding status = boundBinding(c);
      var entries = entriesOf.getOrDefault(key, List.of());
      Binding pick =
          entries.stream()
              .map(Map.Entry::getValue)
              .filter(b -> status != null && same(b, status))
              .findFirst()
              .orElse(entries.isEmpty() ? status : entries.getFirst().getValue());
      if (pick != null) {
        chosen.put(key, pick);
      }
    }
    Map<String, String> nodeOf = new HashMap<>();
    // Entries kept in the ledgers: the committed ones, and those on GPUs the inventory lacks now
    // (a node whose heartbeat is late keeps its record; nothing can be placed there meanwhile).
    Map<String, String> kept = new HashMap<>();
    List.copyOf(chosen.entrySet()).stream()
        .sorted(
            Comparator.comparing(
                    (Map.Entry<String, Binding> e) ->
                        ClaimRequests.from(byKey.get(e.getKey())).priority())
                .thenComparing(
                    e -> String.valueOf(byKey.get(e.getKey()).getMetadata().getCreationTimestamp()))
                .thenComparing(Map.Entry::getKey))
        .forEach(
            e -> {
              Request r = ClaimRequests.from(byKey.get(e.getKey()));
              Binding b = e.getValue();
              int percent = engine.mpsPercent(b.getGpuUuid(), b.getSms() == null ? 0 : b.getSms());
              Placement p = Bindings.toPlacement(b, percent, r.memoryBytes());
              var why = engine.commit(r.claim(), r.priority(), p);
              if (why.isPresent()) {
                lostSlices.put(r.claim(), why.get());
                if (engine.gpu(b.getGpuUuid()).isEmpty()) {
                  kept.put(r.claim(), b.getNode());
                }
              } else {
                nodeOf.put(r.claim(), b.getNode());
                kept.put(r.claim(), b.getNode());
                chosen.put(r.claim(), Bindings.toBinding(p)); // as record() will compare it
              }
            });
    tidy(ledger, snaps, kept, chosen);
    return nodeOf;
  }

  /** Each ledger holds exactly the engine's slices on its node (best effort; a 409 waits). */
  private static void tidy(
      NodeLedger ledger,
      Map<String, NodeLedger.Snapshot> snaps,
      Map<String, String> kept,
      Map<String, Binding> chosen) {
    Map<String, Map<String, Binding>> wanted = new HashMap<>();
    kept.forEach(
        (claim, node) ->
            wanted.computeIfAbsent(node, n -> new LinkedHashMap<>()).put(claim, chosen.get(claim)));
    java.util.Set<String> nodes = new java.util.HashSet<>(snaps.keySet());
    nodes.addAll(wanted.keySet());
    for (String node : nodes) {
      NodeLedger.Snapshot snap =
          snaps.getOrDefault(node, new NodeLedger.Snapshot(node, null, Map.of()));
      Map<String, Binding> want = wanted.getOrDefault(node, Map.of());
      if (!sameMaps(snap.bindings(), want)) {
        ledger.write(snap, want);
      }
    }
  }

  static Binding boundBinding(SliceClaim c) {
    var s = c.getStatus();
    if (s == null || s.getBinding() == null) {
      return null;
    }
    return s.getPhase() == Phase.Bound || s.getPhase() == Phase.Resizing ? s.getBinding() : null;
  }

  static boolean same(Binding a, Binding b) {
    return Objects.equals(Serialization.asJson(a), Serialization.asJson(b));
  }

  private static boolean sameMaps(Map<String, Binding> a, Map<String, Binding> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.keySet().stream().allMatch(k -> same(a.get(k), b.get(k)));
  }
}
