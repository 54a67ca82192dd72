package io.smslice.operator.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DraClaimStatusesTest {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  static final Instant T1 = Instant.parse("2026-01-01T00:01:00Z");

  static final String ALLOCATION =
      """
      "allocation": {"devices": {"results": [
        {"request": "other", "driver": "gpu.nvidia.com", "pool": "n1", "device": "gpu-0"},
        {"request": "slice", "driver": "smslice.io", "pool": "node-a", "device": "gpu-1",
         "shareID": "3f9c", "consumedCapacity": {"sms": "24", "memory": "0"}}]}}
      """;

  static JsonNode json(String status) {
    return Serialization.jsonMapper()
        .valueToTree(Serialization.unmarshal("{\"status\": {" + status + "}}", Object.class));
  }

  static SliceClaim claim() {
    SliceClaim c =
        ResourceClaimSpecsTest.claim(
            "c", "u", ResourceClaimSpecsTest.spec(20, null, Isolation.Compute));
    c.getMetadata().setGeneration(3L);
    return c;
  }

  static Condition condition(SliceClaimStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void anUnallocatedClaimIsPendingUntilTheSchedulerAllocatesIt() {
    SliceClaimStatus s =
        DraClaimStatuses.next(claim(), new DraClaimStatuses.Own(json(""), false), T0);

    assertThat(s.getPhase()).isEqualTo(Phase.Pending);
    assertThat(s.getBinding()).isNull();
    assertThat(s.getObservedGeneration()).isEqualTo(3L);
    assertThat(condition(s, "Placed").getReason()).isEqualTo("WaitingForAllocation");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
  }

  @Test
  void allocatedButNotPreparedIsPlacedAndWaitsForTheNode() {
    SliceClaimStatus s =
        DraClaimStatuses.next(claim(), new DraClaimStatuses.Own(json(ALLOCATION), false), T0);

    assertThat(s.getPhase()).isEqualTo(Phase.Pending);
    assertThat(condition(s, "Placed").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Placed").getReason()).isEqualTo("Allocated");
    assertThat(condition(s, "Placed").getMessage()).contains("24 SMs of gpu-1 on node node-a");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("WaitingForNode");
  }

  @Test
  void theNodesDeviceStatusGivesTheBindingAndReady() {
    String devices =
        """
        , "devices": [{"driver": "smslice.io", "pool": "node-a", "device": "gpu-1", "shareID": "3f9c",
          "conditions": [{"type": "Ready", "status": "True", "reason": "Prepared", "message": "ok"}],
          "data": {"gpuUuid": "GPU-1234", "smGroups": [4, 5, 6], "sms": 24, "memoryBytes": 0}}]
        """;
    SliceClaimStatus s =
        DraClaimStatuses.next(
            claim(), new DraClaimStatuses.Own(json(ALLOCATION + devices), false), T0);

    assertThat(s.getPhase()).isEqualTo(Phase.Bound);
    assertThat(s.getBinding().getNode()).isEqualTo("node-a");
    assertThat(s.getBinding().getGpuUuid()).isEqualTo("GPU-1234");
    assertThat(s.getBinding().getSmGroups()).containsExactly(4, 5, 6);
    assertThat(s.getBinding().getSms()).isEqualTo(24);
    assertThat(s.getBinding().getMode()).isEqualTo(GpuMode.Green);
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("Serving");
  }

  @Test
  void groupsWrittenAsTextAndANotReadyDeviceAreRead() {
    String devices =
        """
        , "devices": [{"driver": "smslice.io", "pool": "node-a", "device": "gpu-1", "shareID": "3f9c",
          "conditions": [{"type": "Ready", "status": "False", "reason": "PrepareFailed",
                          "message": "agent refused"}],
          "data": {"gpuUuid": "GPU-1234", "smGroups": "7,8,9"}}]
        """;
    SliceClaimStatus s =
        DraClaimStatuses.next(
            claim(), new DraClaimStatuses.Own(json(ALLOCATION + devices), false), T0);

    assertThat(s.getBinding().getSmGroups()).containsExactly(7, 8, 9);
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NodeCannotServe");
    assertThat(condition(s, "Ready").getMessage()).contains("PrepareFailed: agent refused");
  }

  @Test
  void aDeviceStatusOfAnotherShareIsNotThisClaims() {
    String devices =
        """
        , "devices": [{"driver": "smslice.io", "pool": "node-a", "device": "gpu-1", "shareID": "other",
          "data": {"gpuUuid": "GPU-1234", "smGroups": [1]}}]
        """;
    SliceClaimStatus s =
        DraClaimStatuses.next(
            claim(), new DraClaimStatuses.Own(json(ALLOCATION + devices), false), T0);

    assertThat(s.getPhase()).isEqualTo(Phase.Pending);
    assertThat(s.getBinding()).isNull();
  }

  @Test
  void aForeignResourceClaimOfTheNameIsReported() {
    SliceClaimStatus s = DraClaimStatuses.next(claim(), new DraClaimStatuses.Foreign(), T0);

    assertThat(s.getPhase()).isEqualTo(Phase.Pending);
    assertThat(condition(s, "Placed").getReason()).isEqualTo("ResourceClaimNameTaken");
    assertThat(s.getMessage()).contains("ResourceClaim ns/c exists and is not controlled");
  }

  @Test
  void aResizeOfAClaimInUseIsRefusedWithAReasonAndTransitionTimesStay() {
    SliceClaim c = claim();
    SliceClaimStatus first =
        DraClaimStatuses.next(c, new DraClaimStatuses.Own(json(ALLOCATION), false), T0);
    c.setStatus(first);
    SliceClaimStatus s =
        DraClaimStatuses.next(c, new DraClaimStatuses.Own(json(ALLOCATION), true), T1);

    assertThat(condition(s, "Resized").getReason()).isEqualTo("ResizeNeedsNewClaim");
    assertThat(condition(s, "Placed").getLastTransitionTime()).isEqualTo(T0.toString());
  }
}
