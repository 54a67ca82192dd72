package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The user's path as kubectl walks it: examples/detector-and-batch applied, the claims Ready, the
 * pods gated by the webhook, pinned and bound by kube-scheduler, the kubelet's Allocate answered by
 * the node side, and the client-library tenants running kernels through the agent.
 */
@Order(10)
@ExtendWith(ClusterExtension.class)
class UserPathE2E {
  private static String ns;

  @BeforeAll
  static void apply(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "detector", "baseline");
    cluster
        .kubectl(
            "apply", "-n", ns, "-f", cluster.repo.resolve("examples/detector-and-batch").toString())
        .check();
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  void claimsBecomeReadyAndShowTheDocumentedColumns(TestCluster cluster) throws Exception {
    cluster
        .kubectl(
            "wait",
            "-n",
            ns,
            "--for=condition=Ready",
            "--timeout=120s",
            "slc/detector",
            "slc/batch")
        .check();
    String table = cluster.kubectl("get", "slc", "-n", ns).check();
    assertThat(table.lines().findFirst().orElseThrow())
        .containsSubsequence(
            "NAME", "PHASE", "READY", "SMS", "MEMORY", "ISOLATION", "NODE", "GPU", "AGE");
    assertThat(table)
        .contains("detector", "Bound", "16")
        .contains("batch", "104")
        .contains(TestCluster.NODE);
    String nodes = cluster.kubectl("get", "slicenodes").check();
    assertThat(nodes.lines().findFirst().orElseThrow())
        .containsSubsequence("NAME", "BACKEND", "AGENT", "HEARTBEAT", "AGE");
    assertThat(nodes).contains(TestCluster.NODE, "simulated");
  }

  @Test
  void podsAreGatedPinnedAndBoundByTheScheduler(TestCluster cluster) throws Exception {
    Pod pod = runningPod(cluster, "app=detector");
    assertThat(pod.getSpec().getSchedulingGates()).isEmpty();
    assertThat(pod.getSpec().getNodeName()).isEqualTo(TestCluster.NODE);
    String required =
        pod.getSpec()
            .getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .toString();
    assertThat(required).contains(TestCluster.NODE);
    // The webhook asked for the claim's SMs as the node side's extended resource.
    Map<String, String> limits =
        pod.getSpec().getContainers().getFirst().getResources().getLimits().entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().toString()));
    assertThat(limits).containsEntry("smslice.io/sm", "16");
    // The scheduler, not the operator, bound it: the pod's PodScheduled condition says so.
    String events =
        cluster
            .kubectl(
                "get",
                "events",
                "-n",
                ns,
                "--field-selector",
                "involvedObject.name=" + pod.getMetadata().getName() + ",reason=Scheduled",
                "-o",
                "jsonpath={.items[*].source.component}{.items[*].reportingComponent}")
            .check();
    assertThat(events).contains("default-scheduler");
  }

  @Test
  void containersGetTheirClaimAndRunKernelsThroughTheAgent(TestCluster cluster) throws Exception {
    Pod pod = runningPod(cluster, "app=detector");
    String env =
        cluster.kubectl("exec", "-n", ns, pod.getMetadata().getName(), "--", "env").check();
    assertThat(env).contains("SMSLICE_CLAIM=", "SMSLICE_TOKEN=", "SMSLICE_SOCKET=");
    String socket =
        env.lines()
            .filter(l -> l.startsWith("SMSLICE_SOCKET="))
            .findFirst()
            .orElseThrow()
            .substring(15);
    cluster
        .kubectl("exec", "-n", ns, pod.getMetadata().getName(), "--", "test", "-S", socket)
        .check();
    // A Compute claim is transparent by default: the interposer preloaded, tenant.env mounted.
    String preload =
        cluster
            .kubectl(
                "exec", "-n", ns, pod.getMetadata().getName(), "--", "cat", "/etc/ld.so.preload")
            .check();
    assertThat(preload).contains("libsmslice-interposer.so");
    cluster
        .kubectl("exec", "-n", ns, pod.getMetadata().getName(), "--", "test", "-f", preload.strip())
        .check();
    String tenantEnv =
        cluster
            .kubectl(
                "exec",
                "-n",
                ns,
                pod.getMetadata().getName(),
                "--",
                "cat",
                "/run/smslice/tenant.env")
            .check();
    assertThat(tenantEnv).contains("SMSLICE_CLAIM=" + ns + "/detector", "CUDA_MPS_PIPE_DIRECTORY=");
    Tenants.awaitKernels(cluster, ns, pod.getMetadata().getName(), Duration.ofMinutes(10));
  }

  private static Pod runningPod(TestCluster cluster, String selector) {
    Wait.until(
        Duration.ofMinutes(3),
        "a Running pod " + selector + " in " + ns,
        () -> {
          List<Pod> pods =
              cluster.client.pods().inNamespace(ns).withLabelSelector(selector).list().getItems();
          return pods.stream().anyMatch(p -> "Running".equals(p.getStatus().getPhase()));
        });
    return cluster
        .client
        .pods()
        .inNamespace(ns)
        .withLabelSelector(selector)
        .list()
        .getItems()
        .stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase()))
        .findFirst()
        .orElseThrow();
  }
}
