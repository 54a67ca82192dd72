package io.smslice.node.dra.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimEndpoint;
import io.smslice.agent.ClaimStatus;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.dra.TestKubelet;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  private static SliceAgent slowFor(
      String key,
      SliceAgent real,
      CountDownLatch started,
      CountDownLatch finish,
      AtomicInteger serves) {
    return new SliceAgent() {
      @Override
      public void serve(BoundClaim claim) throws Exception {
        if (claim.key().equals(key)) {
          serves.incrementAndGet();
          started.countDown();
          finish.await(20, TimeUnit.SECONDS);
        }
        real.serve(claim);
      }

      @Override
      public void release(String namespace, String claim) {
        real.release(namespace, claim);
      }

      @Override
      public void forgetTokens(String namespace, String claim) {
        real.forgetTokens(namespace, claim);
      }

      @Override
      public List<ClaimStatus> claimStatuses() {
        return real.claimStatuses();
      }

      @Override
      public Optional<ClaimEndpoint> endpoint(String namespace, String claim) {
        return real.endpoint(namespace, claim);
      }

      @Override
      public String issueToken(String namespace, String claim, String podUid, String container) {
        return real.issueToken(namespace, claim, podUid, container);
      }

      @Override
      public Path tenantEnvironment(
          String namespace,
          String claim,
          String podUid,
          String container,
          Map<String, String> env) {
        return real.tenantEnvironment(namespace, claim, podUid, container, env);
      }
    };
  }
}
