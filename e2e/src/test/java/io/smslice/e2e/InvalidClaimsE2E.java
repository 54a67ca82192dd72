package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.e2e.cluster.Command;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every invalid SliceClaim the offline CRD tests reject
 * (crds/src/test/resources/invalid-sliceclaims.psv, one list for both) is rejected by the real API
 * server, with a message containing the same text.
 */
@Order(20)
@ExtendWith(ClusterExtension.class)
class InvalidClaimsE2E {
  private static String ns;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    ns = Tenants.namespace(cluster, "invalid", "restricted");
  }

  @AfterAll
  static void removeTenants(TestCluster cluster) throws Exception {
    Tenants.delete(cluster, ns);
  }

  @Test
  void theApiServerRejectsEveryInvalidClaimWithTheMessageTheOfflineTestsExpect(TestCluster cluster)
      throws Exception {
    Path list = cluster.repo.resolve("crds/src/test/resources/invalid-sliceclaims.psv");
    List<String> disagreements = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(list)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] specAndMessage = line.split("\\|", 2);
      String spec = specAndMessage[0].strip().replace("\\n", "\n");
      String expected = specAndMessage[1].strip();
      String manifest =
          "apiVersion: smslice.io/v1alpha1\nkind: SliceClaim\nmetadata:\n  name: bad-"
              + n++
              + "\nspec:\n"
              + spec.indent(2);
      Command.Result result = cluster.kubectl("apply", "-n", ns, "-f", "-").run(manifest);
      if (result.ok() || !result.stderr().contains(expected)) {
        disagreements.add(
            spec.replace("\n", "\\n")
                + " -> "
                + (result.ok() ? "accepted" : result.stderr().strip()));
      }
    }
    assertThat(n).as("claims read from " + list).isGreaterThan(20);
    assertThat(disagreements)
        .as("claims the API server accepted or rejected with another message")
        .isEmpty();
  }
}
