package io.smslice.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Invariants of placement on random clusters and claim streams, checked independently of the
 * engine's own bookkeeping: from the inventory and the returned placements only.
 */
class PlacementPropertiesTest {

  record Op(int sms, long memoryGib, Priority priority, boolean release) {}

  @Property(tries = 200)
  void placementsNeverOverlapNorExceedCapacityAndFittingClaimsArePlaced(
      @ForAll("clusters") List<NodeInventory> nodes, @ForAll("ops") List<Op> ops) {
    PlacementEngine engine = new PlacementEngine(nodes);
    Map<String, Gpu> gpuByUuid = new HashMap<>();
    nodes.forEach(n -> n.gpus().forEach(g -> gpuByUuid.put(g.uuid(), g)));
    Map<String, Placement> live = new HashMap<>();
    int i = 0;
    for (Op op : ops) {
      String claim = "c" + i++;
      if (op.release() && !live.isEmpty()) {
        String victim = live.keySet().stream().sorted().findFirst().orElseThrow();
        engine.release(victim);
        live.remove(victim);
        continue;
      }
      Request r =
          new Request(
              claim,
              op.sms(),
              op.memoryGib() << 30,
              Isolation.COMPUTE,
              Priority.STANDARD,
              null,
              Map.of());
      Decision d = engine.place(r);
      if (d instanceof Decision.Placed placed) {
        Placement p = placed.placement();
        assertThat(p.sms()).isGreaterThanOrEqualTo(op.sms());
        assertThat(engine.commit(claim, r.priority(), p)).isEmpty();
        live.put(claim, p);
      } else {
        assertThat(fitsSomewhere(r, gpuByUuid.values(), live.values()))
            .as("claim %s for %d SMs fits somewhere but was not placed: %s", claim, op.sms(), d)
            .isFalse();
      }
      checkNoOverlapAndCapacity(gpuByUuid, live.values());
    }
  }

  /**
   * Claims of every priority, the GPUs filling up: only a LatencyCritical claim displaces, only
   * BestEffort claims are displaced, and after each displacement the slices still never overlap.
   */
  @Property(tries = 200)
  void onlyLatencyCriticalDisplacesAndOnlyBestEffortIsDisplaced(
      @ForAll("clusters") List<NodeInventory> nodes, @ForAll("ops") List<Op> ops) {
    PlacementEngine engine = new PlacementEngine(nodes);
    Map<String, Gpu> gpuByUuid = new HashMap<>();
    nodes.forEach(n -> n.gpus().forEach(g -> gpuByUuid.put(g.uuid(), g)));
    Map<String, Placement> live = new HashMap<>();
    Map<String, Priority> priorityOf = new HashMap<>();
    int i = 0;
    for (Op op : ops) {
      String claim = "c" + i++;
      Request r = new Request(claim, op.sms(), 0, Isolation.COMPUTE, op.priority(), null, Map.of());
      if (!(engine.place(r) instanceof Decision.Placed placed)) {
        continue;
      }
      if (!placed.displaced().isEmpty()) {
        assertThat(op.priority())
            .as("%s displaced %s", claim, placed.displaced())
            .isEqualTo(Priority.LATENCY_CRITICAL);
      }
      for (String victim : placed.displaced()) {
        assertThat(priorityOf.get(victim))
            .as("%s displaced by %s", victim, claim)
            .isEqualTo(Priority.BEST_EFFORT);
        engine.release(victim);
        live.remove(victim);
      }
      assertThat(engine.commit(claim, r.priority(), placed.placement())).isEmpty();
      live.put(claim, placed.placement());
      priorityOf.put(claim, op.priority());
      checkNoOverlapAndCapacity(gpuByUuid, live.values());
    }
  }

  /**
   * The best-fit order of docs/placement.md, recomputed from the inventory and the live slices:
   * least rounding waste, then least SMs left free on the GPU, then fewest groups, then node name
   * and GPU index. (Which groups cover a request on one GPU is GroupCoverTest's.)
   */
  @Property(tries = 200)
  void eachClaimGoesToTheBestFittingGpu(
      @ForAll("clusters") List<NodeInventory> nodes, @ForAll("ops") List<Op> ops) {
    PlacementEngine engine = new PlacementEngine(nodes);
    List<Gpu> gpus = nodes.stream().flatMap(n -> n.gpus().stream()).toList();
    Map<String, Placement> live = new HashMap<>();
    GroupCover cover = new GroupCover();
    int i = 0;
    for (Op op : ops) {
      String claim = "c" + i++;
      Request r =
          new Request(claim, op.sms(), 0, Isolation.COMPUTE, Priority.STANDARD, null, Map.of());
      List<Object> best = null;
      for (Gpu g : gpus) {
        Set<Integer> used = new HashSet<>();
        live.values().stream()
            .filter(p -> p.gpuUuid().equals(g.uuid()))
            .forEach(p -> used.addAll(p.groups()));
        int[] free =
            g.groups().stream()
                .filter(x -> !used.contains(x.id()))
                .mapToInt(SmGroup::sms)
                .sorted()
                .toArray();
        int[] c = g.healthy() ? cover.cover(new Shape(free), op.sms()) : null;
        if (c == null) {
          continue;
        }
        int sum = java.util.Arrays.stream(c).sum();
        int freeSms = java.util.Arrays.stream(free).sum();
        List<Object> score =
            List.of(sum - op.sms(), freeSms - sum, c.length, g.node(), g.index(), g.uuid());
        if (best == null || BEST_FIT.compare(score, best) < 0) {
          best = score;
        }
      }
      Decision d = engine.place(r);
      if (best == null) {
        assertThat(d).isInstanceOf(Decision.Unplaced.class);
        continue;
      }
      assertThat(d).as("%s for %d SMs", claim, op.sms()).isInstanceOf(Decision.Placed.class);
      Placement p = ((Decision.Placed) d).placement();
      assertThat(p.gpuUuid())
          .as("%s for %d SMs, best %s", claim, op.sms(), best)
          .isEqualTo(best.get(5));
      assertThat(p.sms()).isEqualTo(op.sms() + (int) best.get(0));
      assertThat(engine.commit(claim, r.priority(), p)).isEmpty();
      live.put(claim, p);
    }
  }

  @SuppressWarnings("unchecked")
  private static final java.util.Comparator<List<Object>> BEST_FIT =
      (a, b) -> {
        for (int k = 0; k < a.size(); k++) {
          int c = ((Comparable<Object>) a.get(k)).compareTo(b.get(k));
          if (c != 0) {
            return c;
          }
        }
        return 0;
      };

  @Property(tries = 50)
  void placementIsDeterministic(
      @ForAll("clusters") List<NodeInventory> nodes, @ForAll("ops") List<Op> ops) {
    assertThat(run(nodes, ops)).isEqualTo(run(nodes, ops));
  }

  private static List<Placement> run(List<NodeInventory> nodes, List<Op> ops) {
    PlacementEngine engine = new PlacementEngine(nodes);
    List<Placement> out = new ArrayList<>();
    int i = 0;
    for (Op op : ops) {
      Request r =
          new Request("c" + i++, op.sms(), 0, Isolation.COMPUTE, op.priority(), null, Map.of());
      if (engine.place(r) instanceof Decision.Placed p) {
        engine.commit(r.claim(), r.priority(), p.placement());
        out.add(p.placement());
      }
    }
    return out;
  }

  private static boolean fitsSomewhere(
      Request r, Iterable<Gpu> gpus, Iterable<Placement> placements) {
    for (Gpu g : gpus) {
      if (!g.healthy()) {
        continue;
      }
      Set<Integer> used = new HashSet<>();
      long memory = 0;
      for (Placement p : placements) {
        if (p.gpuUuid().equals(g.uuid())) {
          used.addAll(p.groups());
          memory += p.memoryBytes();
        }
      }
      int free =
          g.groups().stream().filter(x -> !used.contains(x.id())).mapToInt(SmGroup::sms).sum();
      if (free >= r.sms() && memory + r.memoryBytes() <= g.memoryBytes()) {
        return true;
      }
    }
    return false;
  }

  private static void checkNoOverlapAndCapacity(
      Map<String, Gpu> gpus, Iterable<Placement> placements) {
    Map<String, Set<Integer>> used = new HashMap<>();
    Map<String, Long> memory = new HashMap<>();
    for (Placement p : placements) {
      Gpu g = gpus.get(p.gpuUuid());
      assertThat(g.healthy()).isTrue();
      Set<Integer> taken = used.computeIfAbsent(p.gpuUuid(), k -> new HashSet<>());
      int sms = 0;
      for (int id : p.groups()) {
        assertThat(taken.add(id)).as("group %d of %s taken twice", id, p.gpuUuid()).isTrue();
        sms += g.groups().stream().filter(x -> x.id() == id).findFirst().orElseThrow().sms();
      }
      assertThat(sms).isEqualTo(p.sms());
      memory.merge(p.gpuUuid(), p.memoryBytes(), Long::sum);
      assertThat(memory.get(p.gpuUuid())).isLessThanOrEqualTo(g.memoryBytes());
    }
  }

  @Provide
  Arbitrary<List<NodeInventory>> clusters() {
    Arbitrary<List<Integer>> splits =
        Arbitraries.integers().between(1, 24).list().ofMinSize(1).ofMaxSize(20);
    Arbitrary<Gpu> gpu =
        Combinators.combine(
                splits, Arbitraries.integers().between(8, 160), Arbitraries.of(true, true, false))
            .as(
                (sizes, memGib, healthy) -> {
                  List<SmGroup> groups = new ArrayList<>();
                  for (int k = 0; k < sizes.size(); k++) {
                    groups.add(new SmGroup(k * 3 + 1, sizes.get(k)));
                  }
                  int smCount = sizes.stream().mapToInt(Integer::intValue).sum();
                  return new Gpu(
                      "?",
                      0,
                      "?",
                      "P",
                      Mode.GREEN,
                      smCount,
                      (long) memGib << 30,
                      groups,
                      List.of(),
                      healthy);
                });
    return gpu.list()
        .ofMinSize(1)
        .ofMaxSize(6)
        .map(
            list -> {
              List<NodeInventory> nodes = new ArrayList<>();
              for (int n = 0; n < list.size(); n++) {
                Gpu g = list.get(n);
                String node = "node-" + (n / 2);
                Gpu named =
                    new Gpu(
                        node,
                        n % 2,
                        "GPU-" + n,
                        g.product(),
                        g.mode(),
                        g.smCount(),
                        g.memoryBytes(),
                        g.groups(),
                        g.migSlots(),
                        g.healthy());
                if (n % 2 == 0) {
                  nodes.add(new NodeInventory(node, Map.of(), List.of(named)));
                } else {
                  NodeInventory prev = nodes.removeLast();
                  nodes.add(new NodeInventory(node, Map.of(), List.of(prev.gpus().get(0), named)));
                }
              }
              return nodes;
            });
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<Op> op =
        Combinators.combine(
                Arbitraries.integers().between(1, 140),
                Arbitraries.longs().between(0, 60),
                Arbitraries.of(Priority.class),
                Arbitraries.integers().between(0, 5))
            .as((sms, mem, prio, r) -> new Op(sms, mem, prio, r == 0));
    return op.list().ofMinSize(1).ofMaxSize(60);
  }
}
