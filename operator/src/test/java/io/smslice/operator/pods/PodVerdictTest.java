package io.smslice.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.api.v1alpha1.node.SliceNodeStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodVerdictTest {
  private static Pod pod(String resource, String count) {
    var pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .withNamespace("ns")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .endContainer()
            .endSpec()
            .build();
    if (resource != null) {
      var q = Map.of(resource, new Quantity(count));
      pod.getSpec()
          .getContainers()
          .getFirst()
          .setResources(
              new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                  .withRequests(q)
                  .withLimits(q)
                  .build());
    }
    return pod;
  }

  private static SliceClaim bound(GpuMode mode, int sms) {
    Binding b = new Binding();
    b.setNode("n1");
    b.setGpuUuid("GPU-1");
    b.setMode(mode);
    b.setSms(sms);
    SliceClaimStatus s = new SliceClaimStatus();
    s.setPhase(Phase.Bound);
    s.setBinding(b);
    SliceClaim c = new SliceClaim();
    c.setStatus(s);
    return c;
  }

  private static SliceNode node() {
    NodeGpu g = new NodeGpu();
    g.setUuid("GPU-1");
    g.setSmCount(132);
    SliceNodeStatus s = new SliceNodeStatus();
    s.setGpus(List.of(g));
    SliceNode n = new SliceNode();
    n.setStatus(s);
    return n;
  }

  @Test
  void releasesWhenTheRequestMatchesTheBinding() {
    assertThat(
            PodVerdict.of(pod("smslice.io/sm", "16"), "c", bound(GpuMode.Green, 16), n -> node()))
        .isEqualTo(new PodVerdict.Release("n1"));
    assertThat(PodVerdict.of(pod("smslice.io/mps", "50"), "c", bound(GpuMode.MPS, 66), n -> node()))
        .isEqualTo(new PodVerdict.Release("n1"));
    assertThat(PodVerdict.of(pod("smslice.io/mig", "1"), "c", bound(GpuMode.MIG, 16), n -> node()))
        .isEqualTo(new PodVerdict.Release("n1"));
  }

  @Test
  void aGreenPodAdmittedBeforeBindingAsksForTheClaimsSpecSms() {
    SliceClaim c = bound(GpuMode.Green, 24);
    c.setSpec(new io.smslice.api.v1alpha1.claim.SliceClaimSpec());
    c.getSpec().setSms(20);
    assertThat(PodVerdict.of(pod("smslice.io/sm", "20"), "c", c, n -> node()))
        .isEqualTo(new PodVerdict.Release("n1"));
    assertThat(PodVerdict.of(pod("smslice.io/sm", "24"), "c", c, n -> node()))
        .isEqualTo(new PodVerdict.Release("n1"));
    assertThat(PodVerdict.of(pod("smslice.io/sm", "21"), "c", c, n -> node()))
        .isInstanceOf(PodVerdict.Wait.class);
  }

  @Test
  void waitsWithAReasonOtherwise() {
    assertThat(PodVerdict.of(pod(null, null), "c", null, n -> node()))
        .isInstanceOfSatisfying(
            PodVerdict.Wait.class, w -> assertThat(w.reason()).isEqualTo("ClaimNotFound"));
    assertThat(PodVerdict.of(pod(null, null), "c", bound(GpuMode.Green, 16), n -> node()))
        .isInstanceOfSatisfying(
            PodVerdict.Wait.class,
            w ->
                assertThat(w.message())
                    .contains("requests 0 smslice.io/sm")
                    .contains("bound with 16"));
    Pod owned = pod("smslice.io/sm", "8");
    owned
        .getMetadata()
        .setOwnerReferences(
            List.of(
                new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                    .withKind("ReplicaSet")
                    .withName("rs")
                    .withController(true)
                    .build()));
    assertThat(PodVerdict.of(owned, "c", bound(GpuMode.Green, 16), n -> node()))
        .isInstanceOfSatisfying(
            PodVerdict.Recreate.class,
            r -> assertThat(r.message()).contains("its controller creates it again"));
    SliceClaim failed = bound(GpuMode.Green, 16);
    failed.getStatus().setPhase(Phase.Failed);
    failed.getStatus().setMessage("too big");
    assertThat(PodVerdict.of(pod(null, null), "c", failed, n -> node()))
        .isInstanceOfSatisfying(
            PodVerdict.Wait.class, w -> assertThat(w.message()).contains("too big"));
  }
}
