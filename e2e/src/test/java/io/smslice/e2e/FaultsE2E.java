package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Faults on the real cluster: the kubelet restarted, the node side restarted, the leading operator
 * killed.
 */
@Order(40)
@ExtendWith(ClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultsE2E {
  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "faults", "baseline");
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  @Order(1)
  void aKubeletRestartKeepsRunningPodsDevicesAndThePluginRegistersAgain(TestCluster cluster)
      throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaim
        metadata: {name: steady}
        spec: {sms: 16, memory: 1Gi, isolation: Compute}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: steady
          annotations: {smslice.io/claim: steady}
        spec:
          containers:
          - {name: detector, image: "ghcr.io/smslice/examples:0.1.0", args: [detector]}
        """);
    Pod before = running(cluster, "steady");
    String containerId = before.getStatus().getContainerStatuses().getFirst().getContainerID();

    cluster.local().kubelet().restart(Duration.ofSeconds(10));
    Wait.until(
        Duration.ofMinutes(2),
        "the node Ready again with smslice.io/sm allocatable",
        () ->
            "True"
                    .equals(
                        cluster
                            .kubectl(
                                "get",
                                "node",
                                TestCluster.NODE,
                                "-o",
                                "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                            .run()
                            .stdout()
                            .strip())
                && !cluster
                    .kubectl(
                        "get",
                        "node",
                        TestCluster.NODE,
                        "-o",
                        "jsonpath={.status.allocatable.smslice\\.io/sm}")
                    .run()
                    .stdout()
                    .isBlank());

    Pod after = running(cluster, "steady");
    assertThat(after.getStatus().getContainerStatuses().getFirst().getContainerID())
        .as("the container kept running through the kubelet restart")
        .isEqualTo(containerId);
    // The restarted kubelet serves exec once it has synced its pods again.
    Wait.until(
        Duration.ofMinutes(1),
        "exec into the running pod through the restarted kubelet",
        () -> cluster.kubectl("exec", "-n", ns, "steady", "--", "true").run().ok());
    String env = cluster.kubectl("exec", "-n", ns, "steady", "--", "env").check();
    assertThat(env).contains("SMSLICE_CLAIM=" + ns + "/steady");

    // A new pod after the restart gets its devices from the re-registered plugin.
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaim
        metadata: {name: later}
        spec: {sms: 8, memory: 1Gi, isolation: Compute}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: later
          annotations: {smslice.io/claim: later}
        spec:
          containers:
          - {name: detector, image: "ghcr.io/smslice/examples:0.1.0", args: [detector]}
        """);
    running(cluster, "later");
  }

  @Test
  @Order(2)
  void aRestartedNodeSideServesItsClaimsAgain(TestCluster cluster) throws Exception {
    cluster
        .kubectl(
            "delete",
            "pod",
            "-n",
            Install.NAMESPACE,
            "-l",
            "app.kubernetes.io/component=node",
            "--wait=true")
        .check();
    cluster
        .kubectl(
            "rollout",
            "status",
            "-n",
            Install.NAMESPACE,
            "daemonset/smslice-node",
            "--timeout=180s")
        .check();
    cluster
        .kubectl(
            "wait", "-n", ns, "--for=condition=Ready", "--timeout=180s", "slc/steady", "slc/later")
        .check();
    Tenants.awaitKernels(cluster, ns, "steady", Duration.ofSeconds(20));
  }

  @Test
  @Order(3)
  void killingTheLeadingOperatorDuringABurstLosesAndDoublesNothing(TestCluster cluster)
      throws Exception {
    cluster.kubectl("delete", "pod", "-n", ns, "--all", "--wait=true").check();
    cluster.kubectl("delete", "slc", "-n", ns, "--all", "--wait=true").check();
    StringBuilder burst = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      burst
          .append("apiVersion: smslice.io/v1alpha1\nkind: SliceClaim\nmetadata: {name: burst-")
          .append(i)
          .append("}\nspec: {sms: 8, memory: 1Gi, isolation: Compute}\n---\n");
    }
    Thread apply =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    cluster.kubectl("apply", "-n", ns, "-f", "-").check(burst.toString());
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    Wait.until(Duration.ofMinutes(2), "some claims Bound", () -> bound(cluster).size() >= 3);
    Map<String, List<Integer>> early = bindings(cluster);
    String leader = leaseHolder(cluster);
    cluster
        .kubectl("delete", "pod", "-n", Install.NAMESPACE, leader, "--grace-period=0", "--force")
        .run();
    apply.join();

    // A standby takes the Lease over once the killed leader's has run out.
    Wait.until(
        Duration.ofMinutes(2),
        "another replica holding the Lease",
        () -> {
          String holder = leaseHolder(cluster);
          return !holder.isEmpty() && !holder.equals(leader);
        });
    // One simulated H200: 15 groups of 8 SMs and one of 12, so 16 claims fit; the rest stay
    // Pending.
    Wait.until(Duration.ofMinutes(3), "16 claims Bound", () -> bound(cluster).size() == 16);
    assertThat(cluster.client.resources(SliceClaim.class).inNamespace(ns).list().getItems())
        .hasSize(200);
    Map<String, List<Integer>> late = bindings(cluster);
    assertThat(late).containsAllEntriesOf(early);
    assertDisjoint(late);

    // The new leader places: freeing four slices lets four Pending claims have them.
    List<String> freed = late.keySet().stream().sorted().limit(4).toList();
    for (String name : freed) {
      cluster.kubectl("delete", "slc", "-n", ns, name, "--wait=true").check();
    }
    Wait.until(
        Duration.ofMinutes(2),
        "the new leader binding four Pending claims in their place",
        () -> {
          Map<String, List<Integer>> now = bindings(cluster);
          return now.size() == 16 && now.keySet().stream().noneMatch(freed::contains);
        });
    assertDisjoint(bindings(cluster));
  }

  private static String leaseHolder(TestCluster cluster) throws Exception {
    return cluster
        .kubectl(
            "get",
            "lease",
            "-n",
            Install.NAMESPACE,
            "smslice-operator-leader",
            "-o",
            "jsonpath={.spec.holderIdentity}")
        .check()
        .strip();
  }

  private static void assertDisjoint(Map<String, List<Integer>> bindings) {
    Set<Integer> groups = new HashSet<>();
    bindings
        .values()
        .forEach(
            g ->
                g.forEach(
                    id -> assertThat(groups.add(id)).as("group %d bound twice", id).isTrue()));
  }

  private static List<SliceClaim> bound(TestCluster cluster) {
    return cluster.client.resources(SliceClaim.class).inNamespace(ns).list().getItems().stream()
        .filter(c -> c.getStatus() != null && c.getStatus().getPhase() == Phase.Bound)
        .toList();
  }

  private static Map<String, List<Integer>> bindings(TestCluster cluster) {
    Map<String, List<Integer>> out = new HashMap<>();
    bound(cluster)
        .forEach(c -> out.put(c.getMetadata().getName(), c.getStatus().getBinding().getSmGroups()));
    return out;
  }

  private static Pod running(TestCluster cluster, String name) {
    Wait.until(
        Duration.ofMinutes(3),
        "pod " + name + " Running",
        () -> {
          Pod p = cluster.client.pods().inNamespace(ns).withName(name).get();
          return p != null && "Running".equals(p.getStatus().getPhase());
        });
    return cluster.client.pods().inNamespace(ns).withName(name).get();
  }
}
