package io.smslice.operator.placement;

import static io.smslice.operator.placement.Gpus.GIB;
import static io.smslice.operator.placement.Gpus.compute;
import static io.smslice.operator.placement.Gpus.node;
import static io.smslice.operator.placement.Gpus.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlacementEngineTest {

  private static Placement placed(Decision d) {
    assertThat(d).isInstanceOf(Decision.Placed.class);
    return ((Decision.Placed) d).placement();
  }

  private static Decision.Unplaced unplaced(Decision d) {
    assertThat(d).isInstanceOf(Decision.Unplaced.class);
    return (Decision.Unplaced) d;
  }

  private static Placement placeAndCommit(PlacementEngine e, Request r) {
    Placement p = placed(e.place(r));
    assertThat(e.commit(r.claim(), r.priority(), p)).isEmpty();
    return p;
  }

  @Test
  void computeTakesWholeGroupsOfTheGpusOwnSplit() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    Placement p = placeAndCommit(e, compute("a", 16));
    assertThat(p.mode()).isEqualTo(Mode.GREEN);
    assertThat(p.groups()).containsExactly(0, 1);
    assertThat(p.sms()).isEqualTo(16);
    // 20 SMs: 8 + the remainder 12 covers it exactly, rather than 3 x 8 = 24.
    assertThat(placeAndCommit(e, compute("b", 20)).groups()).containsExactly(2, 15);
    // 10 SMs round up to two 8s now that the 12 is taken.
    assertThat(placeAndCommit(e, compute("c", 10)).sms()).isEqualTo(16);
  }

  @Test
  void granularityComesFromTheGpuNotFromAConstant() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.a100("n1", 0))));
    Placement p = placeAndCommit(e, compute("a", 6));
    assertThat(p.sms()).isEqualTo(8);
    assertThat(p.groups()).hasSize(2);
    assertThat(placed(e.place(compute("b", 97))).sms()).isEqualTo(100);
    assertThat(unplaced(e.place(compute("c", 101))).permanent()).isFalse();
  }

  @Test
  void bestFitPrefersTheFullerGpu() {
    var e =
        new PlacementEngine(
            List.of(node("n1", Gpus.h200("n1", 0)), node("n2", Gpus.h200("n2", 0))));
    placeAndCommit(e, compute("big", 96));
    assertThat(e.placementOf("big").orElseThrow().node()).isEqualTo("n1");
    assertThat(placeAndCommit(e, compute("small", 8)).node()).isEqualTo("n1");
  }

  @Test
  void tooBigIsPermanentFullIsTemporary() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    Decision.Unplaced tooBig = unplaced(e.place(compute("a", 140)));
    assertThat(tooBig.permanent()).isTrue();
    assertThat(tooBig.reason()).isEqualTo("NoSuitableGpu");
    assertThat(tooBig.message()).contains("largest matching: 132 SMs");
    placeAndCommit(e, compute("b", 132));
    Decision.Unplaced full = unplaced(e.place(compute("c", 8)));
    assertThat(full.permanent()).isFalse();
    assertThat(full.reason()).isEqualTo("InsufficientCapacity");
  }

  @Test
  void memoryQuotaCountsAgainstTheGpu() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    Request big =
        new Request("a", 8, 100 * GIB, Isolation.COMPUTE, Priority.STANDARD, null, Map.of());
    placeAndCommit(e, big);
    Request more =
        new Request("b", 8, 50 * GIB, Isolation.COMPUTE, Priority.STANDARD, null, Map.of());
    assertThat(unplaced(e.place(more)).permanent()).isFalse();
  }

  @Test
  void memoryIsolationTakesTheSmallestFittingMigInstance() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.migH200("n1", 0))));
    Request r = new Request("a", 0, 20 * GIB, Isolation.MEMORY, Priority.STANDARD, null, Map.of());
    Placement p = placeAndCommit(e, r);
    assertThat(p.migProfile()).isEqualTo("2g.35gb");
    Request small =
        new Request("b", 0, 10 * GIB, Isolation.MEMORY, Priority.STANDARD, null, Map.of());
    assertThat(placeAndCommit(e, small).migUuid()).isEqualTo("MIG-n1-0-b");
    assertThat(
            placeAndCommit(
                    e,
                    new Request(
                        "c", 0, 10 * GIB, Isolation.MEMORY, Priority.STANDARD, null, Map.of()))
                .migUuid())
        .isEqualTo("MIG-n1-0-d");
    Request huge =
        new Request("d", 0, 100 * GIB, Isolation.MEMORY, Priority.STANDARD, null, Map.of());
    assertThat(unplaced(e.place(huge)).permanent()).isTrue();
  }

  @Test
  void sharedTakesAPercentShareOfAnMpsGpu() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.mpsH200("n1", 0))));
    Placement p = placeAndCommit(e, request("a", 66, Isolation.SHARED, Priority.STANDARD));
    assertThat(p.mpsPercent()).isEqualTo(50);
    placeAndCommit(e, request("b", 66, Isolation.SHARED, Priority.STANDARD));
    assertThat(unplaced(e.place(request("c", 1, Isolation.SHARED, Priority.STANDARD))).permanent())
        .isFalse();
  }

  @Test
  void autoPrefersGreenThenMigThenMps() {
    var e =
        new PlacementEngine(
            List.of(
                node("n1", Gpus.mpsH200("n1", 0)),
                node("n2", Gpus.migH200("n2", 0)),
                node("n3", Gpus.h200("n3", 0))));
    assertThat(placeAndCommit(e, request("a", 132, Isolation.AUTO, Priority.STANDARD)).mode())
        .isEqualTo(Mode.GREEN);
    assertThat(placeAndCommit(e, request("b", 60, Isolation.AUTO, Priority.STANDARD)).mode())
        .isEqualTo(Mode.MIG);
    assertThat(placeAndCommit(e, request("c", 100, Isolation.AUTO, Priority.STANDARD)).mode())
        .isEqualTo(Mode.MPS);
  }

  @Test
  void autoTriesMigFirstForAMemoryBoundClaim() {
    var e =
        new PlacementEngine(
            List.of(node("n1", Gpus.h200("n1", 0)), node("n2", Gpus.migH200("n2", 0))));
    Request bound =
        new Request("m", 16, 0, Isolation.AUTO, Priority.STANDARD, null, Map.of(), true);
    assertThat(placeAndCommit(e, bound).mode()).isEqualTo(Mode.MIG);
    assertThat(placeAndCommit(e, request("c", 16, Isolation.AUTO, Priority.STANDARD)).mode())
        .isEqualTo(Mode.GREEN);
    // Compute stays Compute: the hint orders Auto's choices, it does not override the isolation.
    Request compute =
        new Request("k", 16, 0, Isolation.COMPUTE, Priority.STANDARD, null, Map.of(), true);
    assertThat(placeAndCommit(e, compute).mode()).isEqualTo(Mode.GREEN);
  }

  @Test
  void aMemoryBoundClaimTakesAGreenSliceWhenNoMigInstanceFits() {
    var e =
        new PlacementEngine(
            List.of(node("n1", Gpus.h200("n1", 0)), node("n2", Gpus.migH200("n2", 0))));
    Request tooBigForMig =
        new Request("m", 120, 0, Isolation.AUTO, Priority.STANDARD, null, Map.of(), true);
    assertThat(placeAndCommit(e, tooBigForMig).mode()).isEqualTo(Mode.GREEN);
  }

  @Test
  void latencyCriticalDisplacesBestEffortButNeverStandard() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    placeAndCommit(e, request("std", 64, Isolation.COMPUTE, Priority.STANDARD));
    placeAndCommit(e, request("be1", 36, Isolation.COMPUTE, Priority.BEST_EFFORT));
    placeAndCommit(e, request("be2", 32, Isolation.COMPUTE, Priority.BEST_EFFORT));
    Decision d = e.place(request("lc", 32, Isolation.COMPUTE, Priority.LATENCY_CRITICAL));
    assertThat(d).isInstanceOf(Decision.Placed.class);
    assertThat(((Decision.Placed) d).displaced()).containsExactly("be2");
    // Standard claims never displace, and 100 SMs would need the Standard claim's groups.
    assertThat(e.place(request("s2", 32, Isolation.COMPUTE, Priority.STANDARD)))
        .isInstanceOf(Decision.Unplaced.class);
    assertThat(e.place(request("lc2", 100, Isolation.COMPUTE, Priority.LATENCY_CRITICAL)))
        .isInstanceOf(Decision.Unplaced.class);
  }

  @Test
  void resizeGrowsInPlaceKeepingItsGroups() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    placeAndCommit(e, compute("a", 16));
    placeAndCommit(e, compute("b", 16));
    Decision d = e.resize(compute("a", 32));
    Placement grown = placed(d);
    assertThat(grown.groups()).contains(0, 1).hasSize(4);
    assertThat(grown.groups()).doesNotContain(2, 3);
    Decision tooMuch = e.resize(compute("a", 120));
    assertThat(unplaced(tooMuch).reason()).isEqualTo("InsufficientCapacity");
    assertThat(e.placementOf("a").orElseThrow().sms()).isEqualTo(16);
  }

  @Test
  void inventoryChangeLosesSlicesOnUnhealthyOrMissingGpus() {
    var e =
        new PlacementEngine(
            List.of(node("n1", Gpus.h200("n1", 0)), node("n2", Gpus.h200("n2", 0))));
    placeAndCommit(e, compute("a", 100));
    placeAndCommit(e, compute("b", 100));
    var next = e.withInventory(List.of(node("n1", Gpus.unhealthy(Gpus.h200("n1", 0)))));
    assertThat(next.lost()).containsOnlyKeys("a", "b");
    assertThat(next.placementOf("a")).isEmpty();
    assertThat(unplaced(next.place(compute("a", 100))).permanent()).isFalse();
  }

  /** A GPU re-reported with another split, or without a MIG instance, loses what no longer fits. */
  @Test
  void inventoryChangeLosesSlicesWhoseGroupsOrInstanceNoLongerMatch() {
    Gpu before = Gpus.h200("n1", 0);
    var e = new PlacementEngine(List.of(node("n1", before, Gpus.migH200("n1", 1))));
    assertThat(placeAndCommit(e, compute("a", 16)).groups()).containsExactly(0, 1);
    assertThat(placeAndCommit(e, compute("b", 16)).groups()).containsExactly(2, 3);
    Placement mig =
        placeAndCommit(
            e, new Request("m", 0, 20 * GIB, Isolation.MEMORY, Priority.STANDARD, null, Map.of()));
    List<SmGroup> resplit = new java.util.ArrayList<>(before.groups());
    resplit.set(1, new SmGroup(1, 4)); // group 1 now holds 4 SMs: a's 16 are not there
    Gpu after =
        new Gpu(
            "n1",
            0,
            before.uuid(),
            before.product(),
            before.mode(),
            before.smCount() - 4,
            before.memoryBytes(),
            resplit,
            List.of(),
            true);
    Gpu migBefore = Gpus.migH200("n1", 1);
    Gpu migAfter =
        new Gpu(
            "n1",
            1,
            migBefore.uuid(),
            migBefore.product(),
            migBefore.mode(),
            migBefore.smCount(),
            migBefore.memoryBytes(),
            List.of(),
            migBefore.migSlots().stream().filter(s -> !s.uuid().equals(mig.migUuid())).toList(),
            true);
    var next = e.withInventory(List.of(node("n1", after, migAfter)));
    assertThat(next.lost()).containsOnlyKeys("a", "m");
    assertThat(next.placementOf("b")).isPresent();
  }

  @Test
  void overlappingCommitIsRejected() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    Placement p = placeAndCommit(e, compute("a", 16));
    assertThat(e.commit("b", Priority.STANDARD, p)).get().asString().contains("already taken");
    e.release("a");
    assertThat(e.commit("b", Priority.STANDARD, p)).isEmpty();
  }

  @Test
  void selectorRestrictsProductAndNodeLabels() {
    var e =
        new PlacementEngine(
            List.of(
                node("n1", Map.of("zone", "a"), Gpus.a100("n1", 0)),
                node("n2", Map.of("zone", "b"), Gpus.h200("n2", 0))));
    Request h200 =
        new Request("a", 8, 0, Isolation.COMPUTE, Priority.STANDARD, "NVIDIA H200", Map.of());
    assertThat(placed(e.place(h200)).node()).isEqualTo("n2");
    Request zoneA =
        new Request("b", 8, 0, Isolation.COMPUTE, Priority.STANDARD, null, Map.of("zone", "a"));
    assertThat(placed(e.place(zoneA)).node()).isEqualTo("n1");
    Request nowhere =
        new Request(
            "c", 8, 0, Isolation.COMPUTE, Priority.STANDARD, "NVIDIA H200", Map.of("zone", "a"));
    assertThat(unplaced(e.place(nowhere)).permanent()).isTrue();
  }

  @Test
  void missingSmsIsAnInvalidClaim() {
    var e = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    Decision.Unplaced u = unplaced(e.place(compute("a", 0)));
    assertThat(u.reason()).isEqualTo("InvalidClaim");
    assertThat(u.message()).contains("spec.sms is required");
  }

  /** Issue 12.1: a node closed to new work gets no new slice; what it holds stays. */
  @Test
  void closedNodesGetNoNewSlicesButKeepTheirs() {
    var open = node("n1", Gpus.h200("n1", 0));
    var closed = new NodeInventory("n0", Map.of(), List.of(Gpus.h200("n0", 0)), "cordoned");
    var e = new PlacementEngine(List.of(closed, open));
    assertThat(placed(e.place(compute("a", 16))).node()).isEqualTo("n1");
    Placement held =
        new Placement("n0", "GPU-n0-0", Mode.GREEN, List.of(0, 1), 16, null, null, 0, 0);
    assertThat(e.commit("old", Priority.STANDARD, held)).isEmpty();

    var onlyClosed = new PlacementEngine(List.of(closed));
    var u = unplaced(onlyClosed.place(compute("b", 16)));
    assertThat(u.permanent()).as("a cordon is not forever").isFalse();
    assertThat(u.message()).contains("closed to new work");
    var lc = request("lc", 16, Isolation.COMPUTE, Priority.LATENCY_CRITICAL);
    assertThat(onlyClosed.place(lc)).isInstanceOf(Decision.Unplaced.class);
  }

  /** Issue 9: MPS percentage claims and green slices never share a GPU. */
  @Test
  void sharedClaimsAndGreenSlicesKeepToGpusOfTheirOwnMode() {
    var e =
        new PlacementEngine(
            List.of(node("n1", Gpus.h200("n1", 0)), node("n2", Gpus.mpsH200("n2", 0))));
    Placement shared = placed(e.place(request("s", 16, Isolation.SHARED, Priority.STANDARD)));
    assertThat(shared.mode()).isEqualTo(Mode.MPS);
    assertThat(shared.node()).isEqualTo("n2");
    Placement green = placed(e.place(compute("g", 16)));
    assertThat(green.mode()).isEqualTo(Mode.GREEN);
    assertThat(green.node()).isEqualTo("n1");

    var greenOnly = new PlacementEngine(List.of(node("n1", Gpus.h200("n1", 0))));
    assertThat(greenOnly.place(request("s", 16, Isolation.SHARED, Priority.STANDARD)))
        .isInstanceOf(Decision.Unplaced.class);
    var mpsOnly = new PlacementEngine(List.of(node("n2", Gpus.mpsH200("n2", 0))));
    assertThat(mpsOnly.place(compute("g", 16))).isInstanceOf(Decision.Unplaced.class);
    // A green GPU's engine state never admits an MPS share, even committed by hand.
    Placement mpsOnGreen =
        new Placement("n1", "GPU-n1-0", Mode.MPS, List.of(), 16, null, null, 13, 0);
    assertThat(greenOnly.commit("x", Priority.STANDARD, mpsOnGreen)).isPresent();
  }
}
