package io.smslice.operator.bench;

import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.operator.it.Cluster;
import io.smslice.operator.it.PlainOperator;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Claim -> Bound latency through the real operator (JOSDK, SSA off) on fabric8's CRUD mock API
 * server: one claim at a time, from the create call to the watch event that shows it Bound.
 *
 * <p>Run: {@code ./mvnw -q -pl operator test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.smslice.operator.bench.BindLatencyBench}
 */
public final class BindLatencyBench {
  /** Held so the level sticks: the mock logs every request, which would be measured too. */
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  public static void main(String[] args) throws Exception {
    // The mock server's Vert.x threads are not daemons: end the JVM here, also on failure.
    try {
      run(args);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  private static void run(String[] args) throws Exception {
    int claims = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    var server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    var client = server.createClient();
    Cluster.installCrds(client);
    for (int n = 0; n < 8; n++) {
      NodeGpu[] gpus = new NodeGpu[8];
      for (int g = 0; g < 8; g++) {
        gpus[g] = Cluster.h200("GPU-b" + n + "-" + g, g, "NVIDIA H200");
      }
      Cluster.sliceNode(client, "b" + n, Instant.now(), gpus);
    }
    Map<String, CountDownLatch> waiting = new ConcurrentHashMap<>();
    var watch =
        client
            .resources(SliceClaim.class)
            .inNamespace(Cluster.NS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, SliceClaim c) {
                    if (c.getStatus() != null && c.getStatus().getPhase() == Phase.Bound) {
                      var latch = waiting.get(c.getMetadata().getName());
                      if (latch != null) {
                        latch.countDown();
                      }
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    double[] millis = new double[claims];
    try (PlainOperator operator = new PlainOperator(client)) {
      for (int i = 0; i < claims; i++) {
        String name = "lat-" + i;
        CountDownLatch latch = new CountDownLatch(1);
        waiting.put(name, latch);
        long t0 = System.nanoTime();
        client.resource(Cluster.claim(name, 8 + 8 * (i % 4), null)).create();
        if (!latch.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException(name + " was not Bound within 10 s");
        }
        millis[i] = (System.nanoTime() - t0) / 1e6;
        if (System.getenv("BENCH_TRACE") != null) {
          System.out.printf("%s %.1f ms%n", name, millis[i]);
        }
      }
    }
    watch.close();
    client.close();
    server.destroy();
    // The first claims pay for class loading and JIT; report them apart.
    double[] warm = Arrays.copyOfRange(millis, Math.min(20, claims), claims);
    Arrays.sort(warm);
    System.out.printf(
        "claim->Bound on the mock API, %d claims one at a time (first 20 excluded as warm-up):"
            + " p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; first claim %.1f ms%n",
        claims, pct(warm, 50), pct(warm, 90), pct(warm, 99), warm[warm.length - 1], millis[0]);
  }

  private static double pct(double[] sorted, int p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }
}
