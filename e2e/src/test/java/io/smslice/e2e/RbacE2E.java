package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The device-plugin install's RBAC on the real authorizer ({@link RbacCheck}): a verb removed from
 * the chart, or one granted beyond use, fails here. DraE2E checks the DRA install the same way.
 */
@Order(60)
@ExtendWith(ClusterExtension.class)
class RbacE2E {
  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    assertThat(RbacCheck.components(cluster)).containsKeys("operator", "node");
  }

  @Test
  void everyCallTheCodeMakesIsAllowedAndNoOtherVerbOnItsResources(TestCluster cluster)
      throws Exception {
    assertThat(RbacCheck.violations(cluster, "devicePlugin"))
        .as("what the real authorizer allows beside the code's calls")
        .isEmpty();
  }
}
