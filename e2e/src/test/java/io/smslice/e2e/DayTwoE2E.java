package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.e2e.cluster.ClusterNode;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Day-2 operations as users perform them: a rollout restart of every example Deployment, a
 * StatefulSet pod deleted and made again under its name, and names at their maximum lengths.
 */
@Order(80)
@ExtendWith(ClusterExtension.class)
class DayTwoE2E {
  /** 63 characters, the most a namespace name may have. */
  private static final String LONG_NS = "day-two-" + "n".repeat(63 - "day-two-".length());

  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    cluster.kubectl("create", "namespace", LONG_NS).check();
    cluster
        .kubectl("label", "namespace", LONG_NS, "pod-security.kubernetes.io/enforce=baseline")
        .check();
    ns = LONG_NS;
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  /** Every Deployment under examples/ that runs on the simulated backend, by folder. */
  private static final Map<String, List<String>> EXAMPLE_DEPLOYMENTS =
      Map.of(
          "examples/detector-and-batch", List.of("detector"),
          "examples/ensemble", List.of("model-a", "model-b", "model-c", "voter"));

  /** A node without a GPU: the examples' CPU parts (the ensemble's voter) run there. */
  static final String CPU_NODE = "cpu-node-0";

  @Test
  void aRolloutRestartOfEveryExampleDeploymentCompletes(TestCluster cluster) throws Exception {
    // The local cluster's own node is a tainted GPU node; a real cluster has nodes without GPUs.
    if (cluster.isLocal() && !cluster.local().hasNode(CPU_NODE)) {
      cluster.local().addNode(ClusterNode.withoutGpu(CPU_NODE));
    }
    for (var example : EXAMPLE_DEPLOYMENTS.entrySet()) {
      String folder = cluster.repo.resolve(example.getKey()).toString();
      cluster.kubectl("apply", "-n", ns, "-f", folder).check();
      Map<String, String> before = new HashMap<>();
      for (String d : example.getValue()) {
        rolledOut(cluster, d);
        before.put(d, pod(cluster, "app=" + d).getMetadata().getUid());
      }
      for (String d : example.getValue()) {
        cluster.kubectl("rollout", "restart", "-n", ns, "deployment/" + d).check();
      }
      for (String d : example.getValue()) {
        rolledOut(cluster, d);
        assertThat(pod(cluster, "app=" + d).getMetadata().getUid())
            .as(example.getKey() + ": " + d + " has a new pod")
            .isNotEqualTo(before.get(d));
      }
      cluster.kubectl("delete", "-n", ns, "-f", folder, "--wait=true").check();
    }
  }

  private static void rolledOut(TestCluster cluster, String deployment) throws Exception {
    cluster
        .kubectl("rollout", "status", "-n", ns, "deployment/" + deployment, "--timeout=180s")
        .check();
  }

  @Test
  void aStatefulSetPodMadeAgainUnderItsNameGetsItsSliceAgainWithinAMinute(TestCluster cluster)
      throws Exception {
    // A template name of 63 characters, the most the webhook takes (its claims carry it as a
    // label).
    String template = "t".repeat(63);
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaimTemplate
        metadata: {name: %s}
        spec:
          spec: {sms: 8, memory: 1Gi, isolation: Compute}
        ---
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: store}
        spec:
          replicas: 1
          serviceName: store
          selector: {matchLabels: {app: store}}
          template:
            metadata:
              labels: {app: store}
              annotations: {smslice.io/claim-template: %s}
            spec:
              terminationGracePeriodSeconds: 5
              containers:
              - {name: detector, image: "ghcr.io/smslice/examples:0.1.0", args: [detector]}
        """
                .formatted(template, template));
    Pod first = running(cluster, "store-0", null);
    cluster.kubectl("delete", "pod", "-n", ns, "store-0", "--wait=true").check();
    Pod again = running(cluster, "store-0", first.getMetadata().getUid());
    String claim = again.getMetadata().getAnnotations().get("smslice.io/claim");
    SliceClaim bound =
        cluster.client.resources(SliceClaim.class).inNamespace(ns).withName(claim).get();
    assertThat(bound.getStatus().getPhase()).isEqualTo(Phase.Bound);
    assertThat(bound.getMetadata().getOwnerReferences().getFirst().getUid())
        .isEqualTo(again.getMetadata().getUid());
  }

  @Test
  void aTemplateNameTooLongForItsClaimsLabelIsRefusedAtAdmission(TestCluster cluster)
      throws Exception {
    var result =
        cluster
            .kubectl("apply", "-n", ns, "-f", "-")
            .run(
                """
        apiVersion: v1
        kind: Pod
        metadata:
          name: too-long
          annotations: {smslice.io/claim-template: %s}
        spec:
          containers:
          - {name: detector, image: "ghcr.io/smslice/examples:0.1.0", args: [detector]}
        """
                    .formatted("t".repeat(64)));
    assertThat(result.ok()).isFalse();
    assertThat(result.stderr())
        .contains("denied the request", "names a SliceClaimTemplate of 64 characters");
  }

  @Test
  void aClaimNamedAtTheMaximumLengthServesItsPod(TestCluster cluster) throws Exception {
    // With the longest namespace, the longest claim name the ledger key <namespace>.<name> holds.
    String name = "c".repeat(252 - LONG_NS.length());
    var refused =
        cluster
            .kubectl("apply", "-n", ns, "-f", "-")
            .run(
                "apiVersion: smslice.io/v1alpha1\nkind: SliceClaim\nmetadata: {name: "
                    + name
                    + "c}\n"
                    + "spec: {sms: 8, memory: 1Gi, isolation: Compute}\n");
    assertThat(refused.ok()).isFalse();
    assertThat(refused.stderr())
        .contains("namespace and name together may have at most 252 characters");
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaim
        metadata: {name: %s}
        spec: {sms: 8, memory: 1Gi, isolation: Compute}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: longest
          annotations: {smslice.io/claim: %s}
        spec:
          containers:
          - {name: detector, image: "ghcr.io/smslice/examples:0.1.0", args: [detector]}
        """
                .formatted(name, name));
    running(cluster, "longest", null);
    Tenants.awaitKernels(cluster, ns, "longest", Duration.ofMinutes(10));
  }

  private static Pod pod(TestCluster cluster, String selector) {
    return cluster
        .client
        .pods()
        .inNamespace(ns)
        .withLabelSelector(selector)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .findFirst()
        .orElseThrow();
  }

  /** Waits (a minute) for the named pod to run, a new one when {@code notUid} is given. */
  private static Pod running(TestCluster cluster, String name, String notUid) {
    Wait.until(
        Duration.ofSeconds(notUid == null ? 180 : 60),
        "pod " + name + " Running",
        () -> {
          Pod p = cluster.client.pods().inNamespace(ns).withName(name).get();
          return p != null
              && "Running".equals(p.getStatus().getPhase())
              && (notUid == null || !notUid.equals(p.getMetadata().getUid()));
        });
    return cluster.client.pods().inNamespace(ns).withName(name).get();
  }
}
