package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Deployment with a claim template: one claim per pod on disjoint SM groups, owned by its pod, so
 * that the real garbage collector removes it when the pod goes (scale-down, deletion).
 */
@Order(30)
@ExtendWith(ClusterExtension.class)
class ClaimTemplateE2E {
  private static final String TEMPLATE_LABEL = "smslice.io/claim-template";
  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "replicas", "baseline");
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaimTemplate
        metadata: {name: replica}
        spec:
          spec: {sms: 8, memory: 1Gi, isolation: Compute, priority: Standard}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: replicas}
        spec:
          replicas: 3
          selector: {matchLabels: {app: replicas}}
          template:
            metadata:
              labels: {app: replicas}
              annotations: {smslice.io/claim-template: replica}
            spec:
              terminationGracePeriodSeconds: 5
              containers:
              - name: detector
                image: ghcr.io/smslice/examples:0.1.0
                args: [detector]
        """);
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  void replicasGetDisjointClaimsThatTheGarbageCollectorRemovesWithTheirPods(TestCluster cluster)
      throws Exception {
    Wait.until(
        Duration.ofMinutes(4),
        "3 Running replicas on 3 Bound claims",
        () -> runningPods(cluster).size() == 3 && bound(cluster).size() == 3);
    List<SliceClaim> claims = bound(cluster);
    Set<Integer> groups = new HashSet<>();
    for (SliceClaim claim : claims) {
      for (int group : claim.getStatus().getBinding().getSmGroups()) {
        assertThat(groups.add(group)).as("SM group %d bound twice", group).isTrue();
      }
      var owner = claim.getMetadata().getOwnerReferences().getFirst();
      assertThat(owner.getKind()).isEqualTo("Pod");
      Pod pod = cluster.client.pods().inNamespace(ns).withName(owner.getName()).get();
      assertThat(pod).as("the claim's owner pod").isNotNull();
      assertThat(owner.getUid()).isEqualTo(pod.getMetadata().getUid());
    }

    cluster.kubectl("scale", "-n", ns, "deployment/replicas", "--replicas=1").check();
    Wait.until(
        Duration.ofMinutes(2),
        "the garbage collector removing two claims",
        () -> claims(cluster).size() == 1);

    Pod survivor = runningPods(cluster).getFirst();
    String itsClaim = survivor.getMetadata().getAnnotations().get("smslice.io/claim");
    cluster
        .kubectl("delete", "pod", "-n", ns, survivor.getMetadata().getName(), "--wait=true")
        .check();
    Wait.until(
        Duration.ofMinutes(3),
        "the deleted pod's claim gone and its replacement on a claim of its own",
        () ->
            claims(cluster).stream().noneMatch(c -> c.getMetadata().getName().equals(itsClaim))
                && runningPods(cluster).size() == 1
                && bound(cluster).size() == 1);
  }

  private static List<SliceClaim> claims(TestCluster cluster) {
    return cluster
        .client
        .resources(SliceClaim.class)
        .inNamespace(ns)
        .withLabel(TEMPLATE_LABEL, "replica")
        .list()
        .getItems();
  }

  private static List<SliceClaim> bound(TestCluster cluster) {
    List<SliceClaim> bound = new ArrayList<>();
    for (SliceClaim c : claims(cluster)) {
      if (c.getStatus() != null && c.getStatus().getPhase() == Phase.Bound) {
        bound.add(c);
      }
    }
    return bound;
  }

  private static List<Pod> runningPods(TestCluster cluster) {
    return cluster
        .client
        .pods()
        .inNamespace(ns)
        .withLabel("app", "replicas")
        .list()
        .getItems()
        .stream()
        .filter(
            p ->
                "Running".equals(p.getStatus().getPhase())
                    && p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }
}
