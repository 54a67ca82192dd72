package io.smslice.node.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.resources.DeviceIds;
import io.smslice.node.testing.FakeCluster;
import io.smslice.node.testing.NodeFixture;
import io.smslice.node.testing.RunningNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocates that wait for their pod hold no lock: a valid Allocate is answered while unresolvable
 * ones of the same resource are still waiting, and concurrent valid ones never share a container.
 */
@EnableKubernetesMockClient(crud = true)
class AllocateConcurrencyTest {
  private static final String SM = "smslice.io/sm";
  private static final String GPU = NodeFixture.GREEN.uuid();
  private static final Duration WAIT_FOR_POD = Duration.ofSeconds(4);

  KubernetesClient client;
  @TempDir Path tmp;

  private static List<String> sms(int from, int count) {
    return IntStream.range(from, from + count).mapToObj(i -> DeviceIds.sm(GPU, i)).toList();
  }

  private void claimWithPod(FakeCluster cluster, RunningNode node, String name, int sms) {
    cluster.addClaim(
        FakeCluster.boundClaim("ml", name, NodeFixture.NODE, GPU, GpuMode.Green, sms, null, null));
    cluster.addPod(
        FakeCluster.pod(
            "ml", name + "-0", NodeFixture.NODE, name, SM, sms, "2026-11-30T01:00:00Z"));
    node.agent.serve("ml", name);
  }

  @Test
  void validAllocatesAreAnsweredWhileTenUnresolvableOnesWait() throws Exception {
    NodeFixture.installCrds(client);
    FakeCluster cluster = new FakeCluster();
    try (RunningNode node = RunningNode.start(tmp, client, cluster, WAIT_FOR_POD);
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      node.kubelet.awaitPlugin(SM, node.started, Duration.ofSeconds(10));
      int valid = 20;
      for (int i = 0; i < valid; i++) {
        claimWithPod(cluster, node, "c" + i, 4);
      }

      // No pod asks for 3 SMs: each of these waits WAIT_FOR_POD, then is refused.
      List<CompletableFuture<Status.Code>> waiting = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        List<String> ids = sms(100 + i, 3);
        waiting.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    node.kubelet.allocate(SM, ids);
                    return Status.Code.OK;
                  } catch (StatusRuntimeException e) {
                    return e.getStatus().getCode();
                  }
                },
                threads));
      }
      Thread.sleep(300); // let them reach the plugin and start waiting

      List<Long> millis = new ArrayList<>();
      List<String> served = new ArrayList<>();
      for (int i = 0; i < valid; i++) {
        long t0 = System.nanoTime();
        var r = node.kubelet.allocate(SM, sms(4 * i, 4)).getContainerResponses(0);
        millis.add((System.nanoTime() - t0) / 1_000_000);
        served.add(r.getEnvsOrThrow("SMSLICE_CLAIM"));
      }
      // Causality, not timing: every valid Allocate was answered before any waiting one ended.
      assertThat(waiting).as("unresolvable Allocates still waiting").noneMatch(f -> f.isDone());
      assertThat(served).doesNotHaveDuplicates().hasSize(valid);

      for (CompletableFuture<Status.Code> f : waiting) {
        assertThat(f.get()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      }
      List<Long> sorted = millis.stream().sorted().toList();
      System.out.println(
          "valid Allocate latency while 10 wait (ms): median "
              + sorted.get(valid / 2)
              + ", max "
              + sorted.getLast()
              + ", all "
              + millis);
    }
  }

  @Test
  void concurrentValidAllocatesGetDistinctContainers() throws Exception {
    NodeFixture.installCrds(client);
    FakeCluster cluster = new FakeCluster();
    try (RunningNode node = RunningNode.start(tmp, client, cluster, WAIT_FOR_POD);
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      node.kubelet.awaitPlugin(SM, node.started, Duration.ofSeconds(10));
      int n = 12;
      for (int i = 0; i < n; i++) {
        claimWithPod(cluster, node, "c" + i, 8);
      }
      List<CompletableFuture<String>> calls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        List<String> ids = sms(8 * i, 8);
        calls.add(
            CompletableFuture.supplyAsync(
                () ->
                    node.kubelet
                        .allocate(SM, ids)
                        .getContainerResponses(0)
                        .getEnvsOrThrow("SMSLICE_CLAIM"),
                threads));
      }
      List<String> claims = new ArrayList<>();
      for (CompletableFuture<String> c : calls) {
        claims.add(c.get());
      }
      assertThat(claims).doesNotHaveDuplicates().hasSize(n);
    }
  }
}
