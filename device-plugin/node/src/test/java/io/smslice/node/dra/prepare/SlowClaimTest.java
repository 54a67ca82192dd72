package io.smslice.node.dra.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.Agent;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimStatus;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.dra.TestKubelet;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim whose green context is slow to make holds up no other claim's prepare, and the groups it
 * was given stay its own meanwhile; the kubelet's retry of the same claim waits for it and gets the
 * same answer without serving it twice.
 */
@EnableKubernetesMockClient(crud = true)
class SlowClaimTest {
  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void aSlowClaimBlocksOnlyItself() throws Exception {
    CountDownLatch slowStarted = new CountDownLatch(1);
    CountDownLatch letSlowFinish = new CountDownLatch(1);
    AtomicInteger slowServes = new AtomicInteger();
    try (DraTestbed node =
            new DraTestbed(
                tmp, client, a -> slowFor("ml/slow", a, slowStarted, letSlowFinish, slowServes));
        TestKubelet kubelet = new TestKubelet(node.registrationSocket());
        ExecutorService threads = Executors.newCachedThreadPool()) {
      String slow = node.claim("ml", "slow", 16);
      String fast = node.claim("ml", "fast", 16);
      CompletableFuture<String> slowAnswer =
          CompletableFuture.supplyAsync(
              () -> kubelet.prepareOne("ml", "slow", slow).getError(), threads);
      CompletableFuture<String> slowRetry =
          CompletableFuture.supplyAsync(
              () -> {
                await(slowStarted);
                return kubelet.prepareOne("ml", "slow", slow).getError();
              },
              threads);
      assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(kubelet.prepareOne("ml", "fast", fast).getError()).isEmpty();
      assertThat(slowAnswer).isNotDone();
      ClaimStatus fastServed =
          node.agent.claimStatuses().stream()
              .filter(s -> s.key().equals("ml/fast"))
              .findFirst()
              .orElseThrow();
      assertThat(fastServed.groups()).containsExactly(2, 3); // 0 and 1 are held by the slow claim

      letSlowFinish.countDown();
      assertThat(slowAnswer.get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(slowRetry.get(10, TimeUnit.SECONDS)).isEmpty();
      assertThat(slowServes).hasValue(1);
      assertThat(node.agent.claimStatuses())
          .filteredOn(s -> s.key().equals("ml/slow"))
          .singleElement()
          .satisfies(s -> assertThat(s.groups()).containsExactly(0, 1));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The real adapter, with the serve of {@code key} waiting for {@code finish}. */
  private static SliceAgent slowFor(
      String key, Agent real, CountDownLatch started, CountDownLatch finish, AtomicInteger serves) {
    return new NodeWithAgent.AgentAsSliceAgent(real) {
      @Override
      public void serve(BoundClaim claim) throws Exception {
        if (claim.key().equals(key)) {
          serves.incrementAndGet();
          started.countDown();
          finish.await(20, TimeUnit.SECONDS);
        }
        super.serve(claim);
      }
    };
  }
}
