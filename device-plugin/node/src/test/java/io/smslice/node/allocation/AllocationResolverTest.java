package io.smslice.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.plugin.AllocationException;
import io.smslice.node.testing.FakeCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AllocationResolverTest {
  private static final String NODE = "n1";
  private static final String SM = "smslice.io/sm";
  private static final String GPU_A = "GPU-aaaaaaaa-0000-0000-0000-000000000000";
  private static final String GPU_B = "GPU-bbbbbbbb-0000-0000-0000-000000000000";

  @TempDir Path tmp;
  private FakeCluster cluster;
  private AllocationResolver resolver;

  @BeforeEach
  void setUp() {
    cluster = new FakeCluster();
    resolver = resolver();
  }

  private AllocationResolver resolver() {
    return new AllocationResolver(
        NODE,
        cluster,
        new AllocationLedger(tmp.resolve("ledger.json")),
        Duration.ofMillis(300),
        Duration.ofMillis(50));
  }

  private Resolution allocate(AllocationResolver r, int count, Set<String> gpus)
      throws AllocationException {
    try (AllocationResolver.Hold hold =
        r.hold(
            new AllocationResolver.Request(
                SM, GpuMode.Green, Collections.nCopies(count, "x"), gpus))) {
      r.commit(List.of(hold));
      return hold.resolution();
    }
  }

  private Pod podWithClaim(String name, String claim, String gpu, int sms, String created) {
    cluster.addClaim(
        FakeCluster.boundClaim("ns", claim, NODE, gpu, GpuMode.Green, sms, null, null));
    return cluster.addPod(FakeCluster.pod("ns", name, NODE, claim, SM, sms, created));
  }

  @Test
  void oldestPendingPodFirstAndEachContainerOnce() throws Exception {
    podWithClaim("late", "c-late", GPU_A, 16, "2026-11-30T02:00:00Z");
    podWithClaim("early", "c-early", GPU_A, 16, "2026-11-30T01:00:00Z");

    assertThat(allocate(resolver, 16, Set.of(GPU_A)).claimName()).isEqualTo("c-early");
    assertThat(allocate(resolver, 16, Set.of(GPU_A)).claimName()).isEqualTo("c-late");
    assertThatThrownBy(() -> allocate(resolver, 16, Set.of(GPU_A)))
        .isInstanceOf(AllocationException.class)
        .hasMessageContaining("no pod on node n1 is waiting for 16 smslice.io/sm");
  }

  @Test
  void theGpuOfTheDevicesBreaksTiesBeforeAge() throws Exception {
    podWithClaim("early", "on-a", GPU_A, 16, "2026-11-30T01:00:00Z");
    podWithClaim("late", "on-b", GPU_B, 16, "2026-11-30T02:00:00Z");
    assertThat(allocate(resolver, 16, Set.of(GPU_B)).claimName()).isEqualTo("on-b");
  }

  @Test
  void theDeviceCountMustMatchTheContainersRequest() throws Exception {
    podWithClaim("small", "small", GPU_A, 8, "2026-11-30T01:00:00Z");
    podWithClaim("big", "big", GPU_A, 24, "2026-11-30T02:00:00Z");
    assertThat(allocate(resolver, 24, Set.of(GPU_A)).claimName()).isEqualTo("big");
  }

  @Test
  void aRestartedResolverRemembersWhatWasAllocated() throws Exception {
    podWithClaim("p", "c", GPU_A, 16, "2026-11-30T01:00:00Z");
    allocate(resolver, 16, Set.of(GPU_A));
    AllocationResolver restarted = resolver();
    assertThatThrownBy(() -> allocate(restarted, 16, Set.of(GPU_A)))
        .isInstanceOf(AllocationException.class);
  }

  @Test
  void aReleasedHoldRecordsNothingAndAHeldContainerGoesToNoOneElse() throws Exception {
    podWithClaim("p", "c", GPU_A, 16, "2026-11-30T01:00:00Z");
    var request =
        new AllocationResolver.Request(
            SM, GpuMode.Green, Collections.nCopies(16, "x"), Set.of(GPU_A));
    try (AllocationResolver.Hold held = resolver.hold(request)) {
      assertThat(held.resolution().claimName()).isEqualTo("c");
      assertThatThrownBy(() -> resolver.hold(request))
          .isInstanceOf(AllocationException.class)
          .hasMessageContaining("no pod on node n1 is waiting for 16");
    }
    assertThat(allocate(resolver, 16, Set.of(GPU_A)).claimName()).isEqualTo("c");
  }

  @Test
  void aPodWhoseClaimCannotBeReadIsAMissForThatPodOnly() throws Exception {
    podWithClaim("good", "c", GPU_A, 16, "2026-11-30T02:00:00Z");
    cluster.addPod(FakeCluster.pod("ns", "broken", NODE, "boom", SM, 16, "2026-11-30T01:00:00Z"));
    AllocationResolver failing =
        new AllocationResolver(
            NODE,
            new ClusterView() {
              @Override
              public List<Pod> podsOnNode(String nodeName) {
                return cluster.podsOnNode(nodeName);
              }

              @Override
              public java.util.Optional<io.smslice.api.v1alpha1.claim.SliceClaim> claim(
                  String namespace, String name) {
                if (name.equals("boom")) {
                  throw new IllegalStateException("API server said 500");
                }
                return cluster.claim(namespace, name);
              }
            },
            new AllocationLedger(tmp.resolve("other-ledger.json")),
            Duration.ofMillis(300),
            Duration.ofMillis(50));
    assertThat(failing.next(SM, GpuMode.Green, 16)).map(Resolution::claimName).hasValue("c");
    assertThat(allocate(failing, 16, Set.of(GPU_A)).claimName()).isEqualTo("c");
    assertThatThrownBy(() -> allocate(failing, 16, Set.of(GPU_A)))
        .hasMessageContaining("ns/broken: claim boom could not be read: API server said 500");
  }

  @Test
  void runningContainersAndClaimsInOtherModesOrPlacesAreSkipped() throws Exception {
    Pod running = podWithClaim("running", "c1", GPU_A, 16, "2026-11-30T01:00:00Z");
    running
        .getStatus()
        .setContainerStatuses(
            List.of(
                new ContainerStatusBuilder()
                    .withName("main")
                    .withRestartCount(0)
                    .withState(new ContainerStateBuilder().withNewRunning().endRunning().build())
                    .build()));
    cluster.addClaim(
        FakeCluster.boundClaim("ns", "mig", NODE, GPU_A, GpuMode.MIG, 16, "16Gi", "MIG-x"));
    cluster.addPod(FakeCluster.pod("ns", "mig-pod", NODE, "mig", SM, 16, "2026-11-30T01:00:00Z"));
    cluster.addClaim(
        FakeCluster.boundClaim("ns", "far", "n2", GPU_A, GpuMode.Green, 16, null, null));
    cluster.addPod(FakeCluster.pod("ns", "far-pod", NODE, "far", SM, 16, "2026-11-30T01:00:00Z"));
    cluster.addPod(FakeCluster.pod("ns", "no-claim", NODE, null, SM, 16, "2026-11-30T01:00:00Z"));
    cluster.addPod(FakeCluster.pod("ns", "ghost", NODE, "missing", SM, 16, "2026-11-30T01:00:00Z"));
    cluster.addPod(FakeCluster.pod("ns", "other-node", "n2", "c1", SM, 16, "2026-11-30T01:00:00Z"));

    assertThatThrownBy(() -> allocate(resolver, 16, Set.of(GPU_A)))
        .isInstanceOf(AllocationException.class)
        .message()
        .contains("ns/mig-pod: claim mig is bound in MIG mode, not Green")
        .contains("ns/far-pod: claim far is bound to node n2, not n1")
        .contains("ns/no-claim has no smslice.io/claim annotation")
        .contains("ns/ghost: claim missing does not exist")
        .doesNotContain("running")
        .doesNotContain("other-node");
  }

  @Test
  void aPodThatAppearsWhileWaitingIsFound() throws Exception {
    Thread later =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException e) {
                    return;
                  }
                  podWithClaim("slow", "c", GPU_A, 8, "2026-11-30T01:00:00Z");
                });
    assertThat(allocate(resolver, 8, Set.of(GPU_A)).claimName()).isEqualTo("c");
    later.join();
  }

  @Test
  void nextNamesTheContainerThatWouldBeServed() {
    podWithClaim("p", "c", GPU_B, 16, "2026-11-30T01:00:00Z");
    assertThat(resolver.next(SM, GpuMode.Green, 16))
        .map(r -> r.binding().getGpuUuid())
        .hasValue(GPU_B);
    assertThat(resolver.next(SM, GpuMode.Green, 8)).isEmpty();
  }
}
