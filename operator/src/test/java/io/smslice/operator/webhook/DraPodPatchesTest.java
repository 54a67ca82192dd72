package io.smslice.operator.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DraPodPatchesTest {
  private static Map<String, Object> op(String path, Object value) {
    return Map.of("op", "add", "path", path, "value", value);
  }

  @Test
  void aPodWithClaimsRequestsAndASelectorOfItsOwnGetsOursAppended() {
    Pod pod =
        new PodBuilder()
            .withNewSpec()
            .addNewResourceClaim()
            .withName("nic")
            .withResourceClaimName("my-nic")
            .endResourceClaim()
            .addToNodeSelector("zone", "a")
            .addNewToleration()
            .withKey("nvidia.com/gpu")
            .withOperator("Exists")
            .endToleration()
            .addNewContainer()
            .withName("sidecar")
            .endContainer()
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addToRequests("cpu", new Quantity("1"))
            .addNewClaim()
            .withName("nic")
            .endClaim()
            .endResources()
            .endContainer()
            .endSpec()
            .build();

    var ops =
        DraPodPatches.forPod(
            pod, null, "tpl", 1, List.of("nvidia.com/gpu"), Map.of("zone", "a", "pool", "gpu"));

    assertThat(ops)
        .containsExactly(
            op(
                "/spec/resourceClaims/-",
                Map.of("name", "smslice", "resourceClaimTemplateName", "tpl")),
            op("/spec/containers/1/resources/claims/-", Map.of("name", "smslice")),
            op("/spec/nodeSelector/pool", "gpu"));
  }

  @Test
  void aContainerWithRequestsButNoClaimsGetsTheClaimsList() {
    Pod pod =
        new PodBuilder()
            .withNewSpec()
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addToLimits("memory", new Quantity("1Gi"))
            .endResources()
            .endContainer()
            .endSpec()
            .build();

    assertThat(DraPodPatches.forPod(pod, "c", null, 0, List.of(), Map.of()))
        .containsExactly(
            op(
                "/spec/resourceClaims",
                List.of(Map.of("name", "smslice", "resourceClaimName", "c"))),
            op("/spec/containers/0/resources/claims", List.of(Map.of("name", "smslice"))));
  }

  @Test
  void conflictsAreNamed() {
    Pod taken =
        new PodBuilder()
            .withNewSpec()
            .addNewResourceClaim()
            .withName("smslice")
            .endResourceClaim()
            .endSpec()
            .build();
    Pod elsewhere =
        new PodBuilder().withNewSpec().addToNodeSelector("pool", "cpu").endSpec().build();

    assertThat(DraPodPatches.conflict(taken, Map.of()))
        .contains("already has a resource claim named smslice");
    assertThat(DraPodPatches.conflict(elsewhere, Map.of("pool", "gpu")))
        .isEqualTo(
            "the pod's nodeSelector pool=cpu contradicts its claim's selector.nodeLabels pool=gpu");
    assertThat(DraPodPatches.conflict(elsewhere, Map.of("pool", "cpu"))).isNull();
  }
}
