package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/install.md's upgrade and uninstall steps, run as written with the helm CLI: a Bound claim
 * keeps its binding through an upgrade that rolls both workloads, and an uninstall leaves only what
 * the docs say it keeps. Runs last: nothing of smslice is installed afterwards.
 */
@Order(1000)
@ExtendWith(ClusterExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HelmLifecycleE2E {
  private static final String CLAIM =
      """
      apiVersion: smslice.io/v1alpha1
      kind: SliceClaim
      metadata: {name: kept, namespace: default}
      spec: {sms: 16, memory: 1Gi, isolation: Compute}
      """;

  @Test
  @Order(1)
  void anUpgradeAsDocumentedKeepsBindings(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    cluster.kubectl("apply", "-f", "-").check(CLAIM);
    cluster
        .kubectl("wait", "--for=condition=Ready", "--timeout=120s", "slc/kept", "-n", "default")
        .check();
    Binding before = binding(cluster);

    // As docs/install.md says: helm 4 applied the CRDs server-side, so taking them over needs
    // --force-conflicts.
    cluster
        .kubectl(
            "apply",
            "--server-side",
            "--force-conflicts",
            "-f",
            cluster.repo.resolve("charts/smslice/crds").toString())
        .check();
    List<String> upgrade =
        new ArrayList<>(
            List.of(
                "upgrade",
                Install.RELEASE,
                cluster.repo.resolve("charts/smslice").toString(),
                "-n",
                Install.NAMESPACE,
                "--wait",
                "--timeout",
                "4m"));
    upgrade.addAll(Install.valuesArgs(cluster));
    // Both workloads' pods change, so both roll.
    upgrade.addAll(
        List.of("--set", "operator.logLevel=DEBUG", "--set", "node.javaOptions=-Xmx700m"));
    cluster.helm(upgrade.toArray(String[]::new)).withTimeout(Duration.ofMinutes(5)).check();
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
            "rollout",
            "status",
            "-n",
            Install.NAMESPACE,
            "deployment/smslice-operator",
            "--timeout=180s")
        .check();
    cluster
        .kubectl("wait", "--for=condition=Ready", "--timeout=180s", "slc/kept", "-n", "default")
        .check();
    assertThat(binding(cluster)).usingRecursiveComparison().isEqualTo(before);
  }

  @Test
  @Order(2)
  void anUninstallAsDocumentedLeavesOnlyTheCrds(TestCluster cluster) throws Exception {
    cluster.kubectl("delete", "slc", "--all", "-A", "--wait=true", "--timeout=120s").check();
    cluster
        .helm("uninstall", Install.RELEASE, "-n", Install.NAMESPACE, "--wait", "--timeout", "3m")
        .withTimeout(Duration.ofMinutes(4))
        .check();
    cluster
        .kubectl("wait", "--for=delete", "pods", "--all", "-n", Install.NAMESPACE, "--timeout=120s")
        .run();
    String selector = "app.kubernetes.io/instance=" + Install.RELEASE;
    assertThat(
            cluster
                .kubectl(
                    "get",
                    "all,configmaps,secrets,serviceaccounts,roles,rolebindings,poddisruptionbudgets",
                    "-n",
                    Install.NAMESPACE,
                    "-l",
                    selector,
                    "-o",
                    "name")
                .check())
        .isBlank();
    assertThat(
            cluster
                .kubectl(
                    "get",
                    "clusterroles,clusterrolebindings,mutatingwebhookconfigurations,"
                        + "validatingwebhookconfigurations,validatingadmissionpolicies,validatingadmissionpolicybindings",
                    "-l",
                    selector,
                    "-o",
                    "name")
                .check())
        .isBlank();
    assertThat(cluster.kubectl("get", "pods", "-n", Install.NAMESPACE, "-o", "name").check())
        .isBlank();
    // What docs/install.md says stays: the CRDs (and with them the SliceNodes the node side wrote).
    assertThat(cluster.kubectl("get", "crd", "-o", "name").check())
        .contains(
            "sliceclaims.smslice.io", "sliceclaimtemplates.smslice.io", "slicenodes.smslice.io");
  }

  private static Binding binding(TestCluster cluster) {
    SliceClaim claim =
        cluster.client.resources(SliceClaim.class).inNamespace("default").withName("kept").get();
    return claim.getStatus().getBinding();
  }
}
