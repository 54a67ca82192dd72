package io.smslice.operator.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 12.1: what makes a node closed to new slices. */
class NodeFactsTest {
  private static final Set<String> TOLERATED = Set.of("nvidia.com/gpu");

  private static NodeBuilder ready() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .addToLabels("zone", "a")
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .endCondition()
        .endStatus();
  }

  @Test
  void aReadyUntaintedNodeIsOpen() {
    NodeFacts f = NodeFacts.of(ready().build(), TOLERATED);
    assertThat(f.closed()).isNull();
    assertThat(f.labels()).containsEntry("zone", "a");
  }

  @Test
  void cordonedNotReadyAndTaintedNodesAreClosedWithTheReasons() {
    Node bad =
        ready()
            .editSpec()
            .withUnschedulable(true)
            .addNewTaint()
            .withKey("node.kubernetes.io/not-ready")
            .withEffect("NoExecute")
            .endTaint()
            .addNewTaint()
            .withKey("dedicated")
            .withValue("db")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .editStatus()
            .editFirstCondition()
            .withStatus("False")
            .endCondition()
            .endStatus()
            .build();
    assertThat(NodeFacts.of(bad, TOLERATED).closed())
        .contains("cordoned")
        .contains("Ready is False")
        .contains("tainted node.kubernetes.io/not-ready:NoExecute")
        .contains("tainted dedicated:NoSchedule");
  }

  @Test
  void toleratedAndSoftTaintsLeaveTheNodeOpen() {
    Node gpu =
        ready()
            .editSpec()
            .addNewTaint()
            .withKey("nvidia.com/gpu")
            .withEffect("NoSchedule")
            .endTaint()
            .addNewTaint()
            .withKey("spot")
            .withEffect("PreferNoSchedule")
            .endTaint()
            .endSpec()
            .build();
    assertThat(NodeFacts.of(gpu, TOLERATED).closed()).isNull();
    Node silent = ready().withStatus(null).build();
    assertThat(NodeFacts.of(silent, TOLERATED).closed()).contains("Ready is not reported");
  }
}
