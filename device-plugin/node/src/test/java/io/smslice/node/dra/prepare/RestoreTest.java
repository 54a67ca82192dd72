package io.smslice.node.dra.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimStatus;
import io.smslice.node.NodeWithAgent;
import io.smslice.node.dra.DraTestbed;
import io.smslice.node.dra.TestKubelet;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted node side serves its checkpointed claims again before the kubelet can call, and their
 * tenants wait meanwhile: with worker processes each claim's start takes a JVM's start, so the
 * claims start side by side, not one after another.
 */
@EnableKubernetesMockClient(crud = true)
class RestoreTest {
  KubernetesClient client;
  @TempDir Path tmp;

  @Test
  void checkpointedClaimsAreServedAgainSideBySide() throws Exception {
    AtomicBoolean restoring = new AtomicBoolean();
    CountDownLatch twoStarted = new CountDownLatch(2);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    try (DraTestbed node =
        new DraTestbed(
            tmp,
            client,
            real ->
                new NodeWithAgent.AgentAsSliceAgent(real) {
                  @Override
                  public void serve(BoundClaim claim) throws Exception {
                    if (restoring.get()) {
                      mostAtOnce.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                      twoStarted.countDown();
                      // One after another, each of these would wait out the timeout alone.
                      twoStarted.await(5, TimeUnit.SECONDS);
                    }
                    try {
                      super.serve(claim);
                    } finally {
                      if (restoring.get()) {
                        inFlight.decrementAndGet();
                      }
                    }
                  }
                })) {
      try (TestKubelet kubelet = new TestKubelet(node.registrationSocket())) {
        for (String name : List.of("a", "b", "c", "d")) {
          kubelet.prepareOne("ml", name, node.claim("ml", name, 16));
        }
      }
      List<ClaimStatus> before = node.agent.claimStatuses();
      node.stop();

      restoring.set(true);
      node.start();
      assertThat(mostAtOnce.get()).as("claims served again at once").isGreaterThanOrEqualTo(2);
      assertThat(node.agent.claimStatuses())
          .extracting(ClaimStatus::key, ClaimStatus::groups)
          .containsExactlyInAnyOrderElementsOf(
              before.stream()
                  .map(s -> org.assertj.core.groups.Tuple.tuple(s.key(), s.groups()))
                  .toList());
    }
  }
}
