package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.e2e.cluster.ClusterNode;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SM slices through Dynamic Resource Allocation on the real control plane and kubelets: the chart
 * installed with {@code allocation.mode=dra} on two GPU nodes of four simulated GPUs each; the
 * kube-scheduler allocates the ResourceClaims from the node sides' ResourceSlices, the kubelets
 * call the DRA plugin's NodePrepareResources, containerd applies its CDI edits. Runs after the
 * device-plugin suite has uninstalled its release.
 */
@Order(1100)
@ExtendWith(ClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DraE2E {
  /** The second GPU node the local cluster adds for this suite. */
  static final String SECOND = "gpu-node-1";

  static final int GPUS_PER_NODE = 4;

  /** The taint the node side puts on an unhealthy GPU's device. */
  static final String UNHEALTHY = "smslice.io/unhealthy";

  /**
   * Where the simulated backend reads injected GPU faults inside the node pod: NodePaths'
   * simulatedFaults under the chart's paths.run.
   */
  private static final String SIMULATED_FAULTS = "/run/smslice/simulated-faults";

  /** The sets of the first test's pods and claims: the kept ones, and those deleted after it. */
  private static final String KEPT = "kept", FREED = "freed";

  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    if (cluster.isLocal() && !cluster.local().hasNode(SECOND)) {
      cluster.local().addNode(ClusterNode.asCloudProvidersMakeThem(SECOND));
    }
    if (cluster.helm("status", Install.RELEASE, "-n", Install.NAMESPACE).run().ok()) {
      cluster
          .helm("uninstall", Install.RELEASE, "-n", Install.NAMESPACE, "--wait")
          .withTimeout(Duration.ofMinutes(4))
          .check();
    }
    // An uninstall keeps the CRDs, and the documented upgrade gave them to kubectl's field manager:
    // a new install takes them as they are.
    List<String> args =
        new ArrayList<>(
            List.of(
                "--set",
                "allocation.mode=dra",
                "--set",
                "node.configDefaults.simulatedGpus=" + GPUS_PER_NODE));
    if (cluster.kubectl("get", "crd", "sliceclaims.smslice.io").run().ok()) {
      args.add("--skip-crds");
    }
    Install.install(cluster, args.toArray(String[]::new));
    Wait.until(
        Duration.ofMinutes(3),
        "ResourceSlices with " + 2 * GPUS_PER_NODE + " smslice.io devices",
        () -> Dra.devices(cluster).size() == 2 * GPUS_PER_NODE);
    ns = Tenants.namespace(cluster, "dra", "baseline");
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  /**
   * 100 ResourceClaims of 8, 16 and 24 SMs (912 of the 960 SMs eight simulated H200s offer in
   * groups of 8), each used by one container of 25 four-container pods.
   */
  @Test
  @Order(1)
  void hundredClaimsAcrossEightGpusOnTwoNodesArePreparedOnDisjointGroups(TestCluster cluster)
      throws Exception {
    StringBuilder manifests = new StringBuilder();
    for (int c = 0; c < 100; c++) {
      manifests.append(Dra.claim(String.format("c-%03d", c), sms(c), null, set(c / 4)));
    }
    for (int p = 0; p < 25; p++) {
      List<String> claims = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        claims.add(String.format("c-%03d", 4 * p + i));
      }
      manifests.append(Dra.podWithClaims(String.format("p-%02d", p), claims, null, set(p)));
    }
    cluster.kubectl("apply", "-n", ns, "-f", "-").check(manifests.toString());
    Dra.awaitRunning(cluster, ns, "smslice.io/test=dra", 25, Duration.ofMinutes(8));

    Map<String, Dra.Prepared> prepared = Dra.prepared(cluster, ns);
    assertThat(prepared).hasSize(100);
    Dra.assertDisjoint(prepared.values());
    assertThat(prepared.values().stream().map(Dra.Prepared::pool).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(TestCluster.NODE, SECOND);
    assertThat(prepared.values().stream().map(Dra.Prepared::gpu).collect(Collectors.toSet()))
        .hasSize(2 * GPUS_PER_NODE);
    for (Dra.Prepared claim : prepared.values()) {
      assertThat(claim.groups().size() * claim.groupSize())
          .as(claim.name() + ": groups for the SMs the scheduler allocated")
          .isEqualTo(claim.sms());
    }
    // What each container sees is its own claim's groups, as the agent serves them.
    Map<String, Dra.Served> served = Dra.servedByAgents(cluster, ns);
    for (int p = 0; p < 25; p++) {
      String pod = String.format("p-%02d", p);
      for (int i = 0; i < 4; i++) {
        String claim = String.format("c-%03d", 4 * p + i);
        Dra.Seen seen = Dra.seen(cluster, ns, pod, "c" + i);
        Dra.Prepared expected = prepared.get(claim);
        assertThat(seen.claim()).isEqualTo(ns + "/" + claim);
        assertThat(seen.gpu()).isEqualTo(expected.gpu());
        assertThat(seen.groups()).isEqualTo(expected.groups());
        assertThat(served.get(claim)).as(claim + " served by its node's agent").isNotNull();
        assertThat(served.get(claim).groups()).isEqualTo(expected.groups());
        assertThat(served.get(claim).node()).isEqualTo(expected.pool());
      }
    }
    // The later tests need the GPUs free; p-00 and its claims stay for the restart and deletion.
    String freed = Dra.SET_LABEL + "=" + FREED;
    cluster
        .kubectl("delete", "pod", "-n", ns, "-l", freed, "--wait=true")
        .withTimeout(Duration.ofMinutes(4))
        .check();
    cluster
        .kubectl("delete", "resourceclaim", "-n", ns, "-l", freed, "--wait=true")
        .withTimeout(Duration.ofMinutes(2))
        .check();
  }

  /** The set of pod p-NN and its claims: p-00's are kept for the later tests. */
  private static String set(int pod) {
    return pod == 0 ? KEPT : FREED;
  }

  private static int sms(int claim) {
    return claim % 10 == 9 ? 16 : claim % 50 == 12 ? 24 : 8;
  }

  /**
   * The case the device plugin cannot tell apart: same-size pods of one Deployment made at once on
   * one node. Each gets its own claim, with no gate and no release order.
   */
  @Test
  @Order(2)
  void sameSizePodsMadeAtOnceOnOneNodeEachGetTheirOwnClaim(TestCluster cluster) throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(Dra.template("twin", 8) + Dra.deployment("twins", 6, "twin", SECOND));
    List<Pod> pods = Dra.awaitRunning(cluster, ns, "app=twins", 6, Duration.ofMinutes(3));
    for (Pod pod : pods) {
      assertThat(pod.getSpec().getSchedulingGates()).as("no smslice gate under DRA").isEmpty();
    }
    Map<String, Dra.Prepared> prepared = Dra.prepared(cluster, ns);
    Dra.assertDisjoint(prepared.values());
    Set<String> claims = new HashSet<>();
    for (Pod pod : pods) {
      String own = pod.getStatus().getResourceClaimStatuses().getFirst().getResourceClaimName();
      Dra.Seen seen = Dra.seen(cluster, ns, pod.getMetadata().getName(), "main");
      assertThat(seen.claim()).isEqualTo(ns + "/" + own);
      assertThat(seen.groups()).isEqualTo(prepared.get(own).groups());
      claims.add(own);
    }
    assertThat(claims).hasSize(6);
  }

  /**
   * The node side restarted while the kubelet prepares claims: every pod starts, groups stay
   * disjoint, and claims prepared before keep their groups (the plugin's checkpoint).
   */
  @Test
  @Order(3)
  void aNodeSideRestartedDuringPreparesLosesAndDoublesNothing(TestCluster cluster)
      throws Exception {
    Map<String, Dra.Prepared> before = Dra.prepared(cluster, ns);
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(Dra.template("late", 8) + Dra.deployment("late", 4, "late", TestCluster.NODE));
    cluster
        .kubectl(
            "delete",
            "pod",
            "-n",
            Install.NAMESPACE,
            "-l",
            "app.kubernetes.io/component=node",
            "--field-selector",
            "spec.nodeName=" + TestCluster.NODE,
            "--wait=false")
        .check();
    // A prepare that met the restart is retried at the kubelet's next sync of the pod, 60-90 s
    // later (syncFrequency plus jitter); one that met the new node side still starting, one sync
    // after that. Seven tries here took 76-95 s; CI once took over 4 minutes.
    Dra.awaitRunning(cluster, ns, "app=late", 4, Duration.ofMinutes(6));
    Map<String, Dra.Prepared> after = Dra.prepared(cluster, ns);
    Dra.assertDisjoint(after.values());
    for (var claim : before.entrySet()) {
      assertThat(after.get(claim.getKey()).groups())
          .as(claim.getKey() + " keeps its groups through the restart")
          .isEqualTo(claim.getValue().groups());
    }
    // The agents serve every prepared claim again, on its groups (the SliceNode shows it within
    // its publishing interval).
    Wait.until(
        Duration.ofMinutes(1),
        "every prepared claim served again on its groups",
        () -> {
          Map<String, Dra.Served> served = Dra.servedByAgents(cluster, ns);
          return after.entrySet().stream()
              .allMatch(
                  c ->
                      served.containsKey(c.getKey())
                          && served.get(c.getKey()).groups().equals(c.getValue().groups()));
        });
  }

  /**
   * A claim deleted while its pod runs stays served until the pod is gone (Kubernetes keeps a
   * reserved claim); then the kubelet unprepares it and its groups are free.
   */
  @Test
  @Order(4)
  void aClaimDeletedWhileItsPodRunsIsReleasedWhenThePodGoes(TestCluster cluster) throws Exception {
    cluster.kubectl("delete", "resourceclaim", "-n", ns, "c-000", "--wait=false").check();
    Thread.sleep(3000);
    assertThat(Dra.servedByAgents(cluster, ns)).containsKey("c-000");
    assertThat(cluster.client.pods().inNamespace(ns).withName("p-00").get().getStatus().getPhase())
        .isEqualTo("Running");
    cluster.kubectl("delete", "pod", "-n", ns, "p-00", "--wait=true").check();
    Wait.until(
        Duration.ofMinutes(2),
        "c-000 gone and no longer served",
        () ->
            !Dra.servedByAgents(cluster, ns).containsKey("c-000")
                && !Dra.exists(cluster, ns, "c-000"));
  }

  /**
   * A claim the node cannot serve (a priority smslice does not know) is refused by
   * NodePrepareResources with a reason on the pod's events and on the claim.
   */
  @Test
  @Order(5)
  void aClaimTheNodeCannotServeGetsAClearReason(TestCluster cluster) throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            Dra.claim("urgent", 8, "Urgent", "urgent")
                + Dra.podWithClaims("urgent", List.of("urgent"), null, "urgent"));
    Wait.until(
        Duration.ofMinutes(2),
        "an event on pod urgent saying why smslice cannot prepare its claim",
        () ->
            Dra.eventMessages(cluster, ns, "Pod", "urgent").stream()
                .anyMatch(m -> m.contains("smslice:")));
    assertThat(Dra.eventMessages(cluster, ns, "ResourceClaim", "urgent"))
        .anyMatch(m -> m.contains("Urgent"));
    cluster.kubectl("delete", "pod,resourceclaim", "-n", ns, "urgent", "--wait=false").check();
  }

  /** A SliceClaim on a DRA cluster: the operator's ResourceClaim, served and reported back. */
  @Test
  @Order(6)
  void aSliceClaimIsServedThroughDra(TestCluster cluster) throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
            apiVersion: smslice.io/v1alpha1
            kind: SliceClaim
            metadata: {name: detector}
            spec: {sms: 16, memory: 1Gi, isolation: Compute}
            ---
            apiVersion: v1
            kind: Pod
            metadata:
              name: detector
              labels: {app: detector}
              annotations: {smslice.io/claim: detector}
            spec:
              containers:
              - name: main
                image: %s
                command: [sh, -c, 'echo "claim=$SMSLICE_CLAIM gpu=$SMSLICE_GPU_UUID groups=$SMSLICE_SM_GROUPS"; exec sleep 100000']
            """
                .formatted(Dra.IMAGE));
    Dra.awaitRunning(cluster, ns, "app=detector", 1, Duration.ofMinutes(3));
    cluster
        .kubectl("wait", "--for=condition=Ready", "--timeout=120s", "slc/detector", "-n", ns)
        .check();
    Dra.Prepared claim = Dra.prepared(cluster, ns).get("detector");
    assertThat(claim).as("the operator's ResourceClaim of the SliceClaim").isNotNull();
    assertThat(claim.sms()).isEqualTo(16);
    assertThat(Dra.seen(cluster, ns, "detector", "main").groups()).isEqualTo(claim.groups());
    var slc =
        cluster
            .client
            .resources(io.smslice.api.v1alpha1.claim.SliceClaim.class)
            .inNamespace(ns)
            .withName("detector")
            .get();
    assertThat(slc.getStatus().getBinding().getSmGroups()).isEqualTo(claim.groups());
    assertThat(slc.getStatus().getBinding().getGpuUuid()).isEqualTo(claim.gpu());
  }

  /** The user's path of docs/install.md: the example ResourceClaimTemplate and its Deployment. */
  @Test
  @Order(7)
  void theDraExampleRunsOnDisjointGroups(TestCluster cluster) throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", cluster.repo.resolve("examples/dra").toString())
        .check();
    List<Pod> pods = Dra.awaitRunning(cluster, ns, "app=dra-detector", 3, Duration.ofMinutes(4));
    // A client-library tenant runs kernels through its claim's agent, reached through the CDI
    // edits.
    Tenants.awaitKernels(
        cluster, ns, pods.getFirst().getMetadata().getName(), Duration.ofSeconds(30));
    Dra.assertDisjoint(Dra.prepared(cluster, ns).values());
  }

  /** The DRA install's RBAC on the real authorizer: its calls allowed, nothing beside them. */
  @Test
  @Order(0)
  void theDraInstallAllowsItsCallsAndNoOtherVerbs(TestCluster cluster) throws Exception {
    assertThat(RbacCheck.violations(cluster, "dra"))
        .as("what the real authorizer allows beside the DRA install's calls")
        .isEmpty();
  }

  /**
   * A GPU that turns unhealthy (a fault file the simulated backend reads, written inside the node
   * pod as an admin would exec into it): the node side taints the GPU's device in its
   * ResourceSlice; a pod already on the GPU keeps running (NoSchedule); a claim that can only be
   * met by that GPU is not allocated while the taint is there; once the GPU is healthy again the
   * taint goes and the waiting pod is scheduled onto it.
   */
  @Test
  @Order(8)
  void anUnhealthyGpuIsTaintedAndTakesNoNewClaimsUntilItIsHealthyAgain(TestCluster cluster)
      throws Exception {
    Dra.Prepared running =
        Dra.prepared(cluster, ns).values().stream()
            .filter(c -> c.pool().equals(SECOND))
            .findFirst()
            .orElseThrow();
    String device = SECOND + "/" + running.device();
    String nodePod = nodePod(cluster, SECOND);
    String fault = SIMULATED_FAULTS + "/" + running.gpu();
    execInNodePod(
        cluster,
        nodePod,
        "sh",
        "-c",
        "mkdir -p "
            + SIMULATED_FAULTS
            + " && echo 'double-bit ECC error (injected by DraE2E)' > "
            + fault);
    try {
      Wait.until(
          Duration.ofSeconds(60),
          device + " tainted in its ResourceSlice",
          () -> taints(cluster, device).contains(UNHEALTHY));
      cluster
          .kubectl("apply", "-n", ns, "-f", "-")
          .check(
              Dra.claimOnGpu("pinned", 8, running.gpu(), "pinned")
                  + Dra.podWithClaims("pinned", List.of("pinned"), null, "pinned"));
      Wait.until(
          Duration.ofMinutes(1),
          "the scheduler to find pod pinned unschedulable",
          () -> unschedulable(cluster, "pinned"));
      Thread.sleep(15_000);
      assertThat(Dra.prepared(cluster, ns)).doesNotContainKey("pinned");
      assertThat(unschedulable(cluster, "pinned")).isTrue();
      assertThat(
              cluster.client.pods().inNamespace(ns).list().getItems().stream()
                  .filter(p -> usesClaim(p, running.name()))
                  .map(p -> p.getStatus().getPhase()))
          .as("the pod on the tainted GPU keeps running")
          .containsOnly("Running");
    } finally {
      execInNodePod(cluster, nodePod, "rm", "-f", fault);
    }
    Wait.until(
        Duration.ofSeconds(60),
        device + " untainted",
        () -> !taints(cluster, device).contains(UNHEALTHY));
    Wait.until(
        Duration.ofMinutes(2),
        "pod pinned Running",
        () ->
            "Running"
                .equals(
                    cluster
                        .client
                        .pods()
                        .inNamespace(ns)
                        .withName("pinned")
                        .get()
                        .getStatus()
                        .getPhase()));
    Dra.Prepared pinned = Dra.prepared(cluster, ns).get("pinned");
    assertThat(pinned.gpu()).isEqualTo(running.gpu());
    assertThat(Dra.seen(cluster, ns, "pinned", "c0").groups()).isEqualTo(pinned.groups());
    Dra.assertDisjoint(Dra.prepared(cluster, ns).values());
  }

  /** Runs a command in a node pod, as an admin who execs into it would. */
  private static void execInNodePod(TestCluster cluster, String nodePod, String... command)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("exec", "-n", Install.NAMESPACE, nodePod, "--"));
    args.addAll(List.of(command));
    cluster.kubectl(args.toArray(String[]::new)).check();
  }

  private static String nodePod(TestCluster cluster, String node) {
    return cluster
        .client
        .pods()
        .inNamespace(Install.NAMESPACE)
        .withLabel("app.kubernetes.io/component", "node")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .getFirst()
        .getMetadata()
        .getName();
  }

  /** The keys of a device's taints, "pool/device" as {@link Dra#devices} names it. */
  @SuppressWarnings("unchecked")
  private static Set<String> taints(TestCluster cluster, String device) {
    Object taints = Dra.devices(cluster).getOrDefault(device, Map.of()).get("taints");
    if (!(taints instanceof List<?> list)) {
      return Set.of();
    }
    return list.stream()
        .map(t -> String.valueOf(((Map<String, Object>) t).get("key")))
        .collect(Collectors.toSet());
  }

  private static boolean unschedulable(TestCluster cluster, String pod) {
    Pod p = cluster.client.pods().inNamespace(ns).withName(pod).get();
    return p != null
        && p.getStatus().getConditions().stream()
            .anyMatch(
                c ->
                    "PodScheduled".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && "Unschedulable".equals(c.getReason()));
  }

  private static boolean usesClaim(Pod pod, String claim) {
    return pod.getSpec().getResourceClaims().stream()
            .anyMatch(r -> claim.equals(r.getResourceClaimName()))
        || pod.getStatus().getResourceClaimStatuses().stream()
            .anyMatch(r -> claim.equals(r.getResourceClaimName()));
  }
}
