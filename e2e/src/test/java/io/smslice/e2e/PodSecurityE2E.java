package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.e2e.cluster.Command;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pod Security Admission as clusters enforce it: a claim pod that meets `restricted` runs in a
 * restricted namespace (nothing smslice adds to the pod spec breaks the level; Allocate's mounts
 * are not part of it), and a pod that runs as root, as transparent tenants must, is refused there
 * by Kubernetes with its own message (docs/run-pytorch-in-a-slice.md: such tenants need
 * `baseline`).
 */
@Order(70)
@ExtendWith(ClusterExtension.class)
class PodSecurityE2E {
  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "restricted", "restricted");
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaim
        metadata: {name: strict}
        spec: {sms: 8, memory: 1Gi, isolation: Compute}
        """);
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  void aRestrictedClaimPodRunsWithItsSlice(TestCluster cluster) throws Exception {
    cluster
        .kubectl("apply", "-n", ns, "-f", "-")
        .check(
            """
        apiVersion: v1
        kind: Pod
        metadata:
          name: strict
          annotations: {smslice.io/claim: strict, smslice.io/transparent: "false"}
        spec:
          securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
          containers:
          - name: detector
            image: ghcr.io/smslice/examples:0.1.0
            args: [detector]
            securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
        """);
    Tenants.awaitKernels(cluster, ns, "strict", Duration.ofMinutes(10));
  }

  @Test
  void aRootTenantIsRefusedByRestrictedWithKubernetesOwnMessage(TestCluster cluster)
      throws Exception {
    Command.Result result =
        cluster
            .kubectl("apply", "-n", ns, "-f", "-")
            .run(
                """
        apiVersion: v1
        kind: Pod
        metadata:
          name: root-tenant
          annotations: {smslice.io/claim: strict}
        spec:
          containers:
          - {name: model, image: "ghcr.io/smslice/examples:0.1.0", args: [detector], securityContext: {runAsUser: 0}}
        """);
    assertThat(result.ok()).isFalse();
    assertThat(result.stderr()).contains("violates PodSecurity \"restricted:latest\"");
  }
}
