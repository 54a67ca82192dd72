package io.smslice.e2e;

import io.smslice.e2e.cluster.Command;
import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * smslice installed as docs/install.md says: the namespace at its Pod Security level, then the
 * chart with helm.
 */
public final class Install {
  public static final String NAMESPACE = "smslice-system";
  public static final String RELEASE = "smslice";

  private Install() {}

  /**
   * Installs the chart unless this release is already deployed; returns once both workloads are
   * ready.
   */
  public static void ensure(TestCluster cluster) throws Exception {
    Command.Result status = cluster.helm("status", RELEASE, "-n", NAMESPACE).run();
    if (!status.ok()) {
      install(cluster);
    }
  }

  public static void install(TestCluster cluster, String... extraArgs) throws Exception {
    namespace(cluster);
    List<String> args =
        new ArrayList<>(
            List.of(
                "install",
                RELEASE,
                cluster.repo.resolve("charts/smslice").toString(),
                "-n",
                NAMESPACE,
                "--wait",
                "--timeout",
                "5m"));
    args.addAll(valuesArgs(cluster));
    args.addAll(List.of(extraArgs));
    cluster.helm(args.toArray(String[]::new)).withTimeout(Duration.ofMinutes(6)).check();
    awaitReady(cluster);
  }

  /** The namespace docs/install.md has users create: the node side needs the privileged level. */
  static void namespace(TestCluster cluster) throws Exception {
    String manifest =
        cluster.kubectl("create", "namespace", NAMESPACE, "--dry-run=client", "-o", "yaml").check();
    cluster.kubectl("apply", "-f", "-").check(manifest);
    cluster
        .kubectl(
            "label",
            "--overwrite",
            "namespace",
            NAMESPACE,
            "pod-security.kubernetes.io/enforce=privileged")
        .check();
  }

  /** The values a local test cluster needs (no GPU, no cert-manager, no NVIDIA runtime class). */
  static List<String> valuesArgs(TestCluster cluster) {
    String values = System.getenv("SMSLICE_E2E_VALUES");
    String file =
        values != null && !values.isBlank()
            ? values
            : cluster.repo.resolve("e2e/src/test/resources/values-local-cluster.yaml").toString();
    return List.of("-f", file);
  }

  static void awaitReady(TestCluster cluster) {
    Wait.until(
        Duration.ofMinutes(3),
        "a SliceNode with a GPU for every node the node side runs on",
        () -> {
          String gpus =
              cluster
                  .kubectl("get", "slicenodes", "-o", "jsonpath={.items[*].status.gpus[*].uuid}")
                  .run()
                  .stdout();
          return !gpus.isBlank();
        });
  }
}
