package io.smslice.operator.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * The allocation as a real Kubernetes 1.36.3 control plane wrote it: kube-scheduler allocated a
 * claim of 20 SMs and 8Gi on a device whose sms capacity steps by 8, and the node's service account
 * recorded status.devices (resource file made with kube-apiserver and kube-scheduler v1.36.3).
 */
class ClaimAllocationTest {
  @Test
  void theSchedulersRoundedSmsAndTheNodesDataAreRead() throws Exception {
    JsonNode claim;
    try (InputStream in =
        getClass().getResourceAsStream("/dra/resourceclaim-prepared-1.36.3.json")) {
      claim = Serialization.jsonMapper().readTree(in);
    }

    ClaimAllocation a = ClaimAllocation.of(claim).orElseThrow();
    assertThat(a.node()).isEqualTo("gpu-1");
    assertThat(a.device()).isEqualTo("gpu-0");
    assertThat(a.sms()).isEqualTo(24);
    assertThat(a.gpuUuid()).isEqualTo("GPU-1234");
    assertThat(a.smGroups()).containsExactly(0, 1, 2);
    assertThat(a.ready()).isEqualTo("True");
    assertThat(ClaimAllocation.reservedFor(claim)).containsExactly("p-c1");
  }
}
