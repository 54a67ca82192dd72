package io.smslice.operator.bench;

import io.smslice.operator.placement.Decision;
import io.smslice.operator.placement.Gpu;
import io.smslice.operator.placement.Gpus;
import io.smslice.operator.placement.Isolation;
import io.smslice.operator.placement.NodeInventory;
import io.smslice.operator.placement.PlacementEngine;
import io.smslice.operator.placement.Priority;
import io.smslice.operator.placement.Request;
import io.smslice.operator.placement.SmGroup;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Placement engine benchmarks (not a test; prints results for operator/benchmarks/):
 *
 * <ol>
 *   <li>speed: 10,000 claims onto 1,000 nodes x 8 H200-like GPUs, engine CPU time of the placing
 *       thread (place + commit);
 *   <li>packing: a claim stream cut from the GPUs' own splits (so 100% is achievable), in random
 *       arrival order, placed by the engine and by a first-fit baseline in the same run.
 * </ol>
 *
 * Run: {@code ./mvnw -q -pl operator test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.smslice.operator.bench.PlacementBench}
 */
public final class PlacementBench {
  private static final long GIB = Gpus.GIB;
  private static final int[] SIZES = {8, 8, 16, 16, 16, 20, 24, 32, 40, 64};

  public static void main(String[] args) {
    System.out.printf(
        "machine: %s, %d cpus, java %s%n",
        System.getProperty("os.arch"),
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    speed();
    packing();
  }

  static List<NodeInventory> cluster(int nodes, int gpusPerNode) {
    List<NodeInventory> out = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      String node = String.format("node-%04d", n);
      List<Gpu> gpus = new ArrayList<>();
      for (int g = 0; g < gpusPerNode; g++) {
        gpus.add(Gpus.h200(node, g));
      }
      out.add(new NodeInventory(node, Map.of(), gpus));
    }
    return out;
  }

  private static void speed() {
    var threads = ManagementFactory.getThreadMXBean();
    for (int run = 1; run <= 3; run++) {
      List<NodeInventory> nodes = cluster(1000, 8);
      Random random = new Random(7);
      List<Request> requests = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        requests.add(
            new Request(
                "ns/c-" + i,
                SIZES[random.nextInt(SIZES.length)],
                4 * GIB,
                Isolation.COMPUTE,
                Priority.STANDARD,
                null,
                Map.of()));
      }
      long cpu0 = threads.getCurrentThreadCpuTime();
      long wall0 = System.nanoTime();
      PlacementEngine engine = new PlacementEngine(nodes);
      int placed = 0;
      for (Request r : requests) {
        if (engine.place(r) instanceof Decision.Placed p) {
          engine.commit(r.claim(), r.priority(), p.placement());
          placed++;
        }
      }
      long cpu = threads.getCurrentThreadCpuTime() - cpu0;
      long wall = System.nanoTime() - wall0;
      System.out.printf(
          "speed run %d: 10000 claims onto 1000 nodes x 8 GPUs: placed %d, engine CPU %.1f ms,"
              + " wall %.1f ms%s%n",
          run, placed, cpu / 1e6, wall / 1e6, run == 1 ? " (cold JVM)" : "");
    }
  }

  private static void packing() {
    List<NodeInventory> nodes = cluster(100, 8);
    Random random = new Random(11);
    List<Integer> claims = new ArrayList<>();
    for (NodeInventory node : nodes) {
      for (Gpu gpu : node.gpus()) {
        claims.addAll(cut(gpu, random));
      }
    }
    Collections.shuffle(claims, random);
    long placeable = claims.stream().mapToLong(Integer::longValue).sum();

    PlacementEngine engine = new PlacementEngine(nodes);
    long bestFit = 0;
    for (int i = 0; i < claims.size(); i++) {
      Request r =
          new Request(
              "ns/p-" + i, claims.get(i), 0, Isolation.COMPUTE, Priority.STANDARD, null, Map.of());
      if (engine.place(r) instanceof Decision.Placed p) {
        engine.commit(r.claim(), r.priority(), p.placement());
        bestFit += claims.get(i);
      }
    }
    FirstFit firstFit = new FirstFit(nodes);
    long ff = 0;
    for (int sms : claims) {
      if (firstFit.place(sms)) {
        ff += sms;
      }
    }
    System.out.printf(
        "packing: %d claims, %d SMs placeable (100%% achievable by construction)%n",
        claims.size(), placeable);
    System.out.printf(
        "packing: engine best-fit placed %.4f of placeable SMs%n", (double) bestFit / placeable);
    System.out.printf(
        "packing: first-fit baseline placed %.4f of placeable SMs%n", (double) ff / placeable);
  }

  /** Splits a GPU's groups into random claims whose sizes are sums of whole groups. */
  private static List<Integer> cut(Gpu gpu, Random random) {
    List<Integer> sizes = new ArrayList<>();
    List<SmGroup> groups = new ArrayList<>(gpu.groups());
    Collections.shuffle(groups, random);
    int i = 0;
    while (i < groups.size()) {
      int take = 1 + random.nextInt(Math.min(5, groups.size() - i));
      int sum = 0;
      for (int k = 0; k < take; k++) {
        sum += groups.get(i + k).sms();
      }
      sizes.add(sum);
      i += take;
    }
    return sizes;
  }
}
