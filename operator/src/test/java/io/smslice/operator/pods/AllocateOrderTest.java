package io.smslice.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AllocateOrderTest {
  private static final Map.Entry<String, Integer> SMS16 = Map.entry(SlicePods.SM_RESOURCE, 16);

  private static Pod pod(String name, int sms, boolean released, String node) {
    var q = Map.of(SlicePods.SM_RESOURCE, new Quantity(Integer.toString(sms)));
    Pod p =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("ml")
            .endMetadata()
            .withNewSpec()
            .addNewSchedulingGate(SlicePods.GATE)
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .withRequests(q)
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    if (released) {
      NodePin.apply(p.getSpec(), node);
    }
    return p;
  }

  @Test
  void aReleasedPodOfTheSameRequestAndNodeNotYetAdmittedIsAhead() {
    Pod self = pod("self", 16, false, "n1");
    Pod other = pod("other", 16, true, "n1");
    assertThat(AllocateOrder.ahead(self, "n1", SMS16, List.of(self, other))).contains(other);

    // Scheduled but not yet admitted by the kubelet: still ahead.
    other.getSpec().setNodeName("n1");
    other.setStatus(new PodStatusBuilder().withPhase("Pending").build());
    assertThat(AllocateOrder.ahead(self, "n1", SMS16, List.of(self, other))).contains(other);
  }

  /**
   * Released but not bound yet: no node name, Pending, and no report that it cannot be scheduled
   * (none at all, or PodScheduled=False with reason SchedulingGated, which a pod keeps after its
   * gate is lifted until the scheduler binds it). It is on its way to the kubelet: ahead.
   */
  @Test
  void aReleasedPodTheSchedulerHasNotBoundYetIsAhead() {
    Pod self = pod("self", 16, false, "n1");
    Pod unbound = pod("unbound", 16, true, "n1");
    unbound.setStatus(new PodStatusBuilder().withPhase("Pending").build());
    assertThat(AllocateOrder.ahead(self, "n1", SMS16, List.of(self, unbound))).contains(unbound);

    Pod ungated = pod("ungated", 16, true, "n1");
    ungated.setStatus(
        new PodStatusBuilder()
            .withPhase("Pending")
            .addNewCondition()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason("SchedulingGated")
            .endCondition()
            .build());
    assertThat(AllocateOrder.ahead(self, "n1", SMS16, List.of(self, ungated))).contains(ungated);
  }

  @Test
  void admittedUnschedulableGatedOtherNodeOtherSizeOrLeavingPodsAreNotAhead() {
    Pod self = pod("self", 16, false, "n1");
    Pod admitted = pod("admitted", 16, true, "n1");
    admitted.setStatus(
        new PodStatusBuilder()
            .withPhase("Pending")
            .addNewContainerStatus()
            .withName("main")
            .endContainerStatus()
            .build());
    Pod running = pod("running", 16, true, "n1");
    running.setStatus(new PodStatusBuilder().withPhase("Running").build());
    Pod unschedulable = pod("unschedulable", 16, true, "n1");
    unschedulable.setStatus(
        new PodStatusBuilder()
            .withPhase("Pending")
            .addNewCondition()
            .withType("PodScheduled")
            .withStatus("False")
            .withReason("Unschedulable")
            .endCondition()
            .build());
    Pod gated = pod("gated", 16, false, "n1");
    Pod elsewhere = pod("elsewhere", 16, true, "n2");
    Pod bigger = pod("bigger", 32, true, "n1");
    Pod leaving = pod("leaving", 16, true, "n1");
    leaving.getMetadata().setDeletionTimestamp("2026-12-01T00:00:00Z");

    assertThat(
            AllocateOrder.ahead(
                self,
                "n1",
                SMS16,
                List.of(self, admitted, running, unschedulable, gated, elsewhere, bigger, leaving)))
        .isEmpty();
  }
}
