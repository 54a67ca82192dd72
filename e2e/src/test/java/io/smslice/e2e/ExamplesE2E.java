package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.e2e.cluster.Command;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every manifest of examples/ passes the API server as a user's kubectl sends it: schemas and CEL
 * of the CRDs, the pod webhook, admission (server-side dry run; UserPathE2E applies one folder for
 * real). The GPU cluster's RuntimeClass `nvidia` is declared as the GPU Operator declares it; no
 * GPU runs here.
 */
@Order(50)
@ExtendWith(ClusterExtension.class)
class ExamplesE2E {
  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "examples", "baseline");
    cluster
        .kubectl("apply", "-f", "-")
        .check(
            """
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: nvidia}
        handler: nvidia
        """);
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  void everyExampleManifestPassesTheApiServerAndTheWebhook(TestCluster cluster) throws Exception {
    List<Path> manifests;
    try (Stream<Path> files = Files.walk(cluster.repo.resolve("examples"))) {
      manifests =
          files
              .filter(f -> f.toString().matches(".*\\.ya?ml$"))
              .filter(f -> !f.toString().matches(".*/(target|results|python|src)/.*"))
              .sorted()
              .toList();
    }
    assertThat(manifests).hasSizeGreaterThanOrEqualTo(8);
    // The claims exist before their workloads, as after `kubectl apply -f <folder>/` (claims sort
    // first).
    for (Path manifest : manifests) {
      if (manifest.getFileName().toString().startsWith("claim")) {
        cluster.kubectl("apply", "-n", ns, "-f", manifest.toString()).check();
      }
    }
    List<String> refused = new ArrayList<>();
    for (Path manifest : manifests) {
      Command.Result result =
          cluster.kubectl("apply", "--dry-run=server", "-n", ns, "-f", manifest.toString()).run();
      if (!result.ok() || !result.stderr().isBlank()) {
        refused.add(cluster.repo.relativize(manifest) + ": " + result.stderr().strip());
      }
    }
    assertThat(refused).as("manifests the API server refused or warned about").isEmpty();
  }
}
