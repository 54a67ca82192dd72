package io.smslice.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.SliceNode;
import org.junit.jupiter.api.Test;

/**
 * During an upgrade the operator and the node side run different versions for a while: a field one
 * of them writes and the other does not know yet must be skipped, not fail the informer (an older
 * operator once stopped watching SliceNodes over a new status field).
 */
class VersionSkewTest {
  private final KubernetesSerialization json = new KubernetesSerialization();

  @Test
  void aSliceNodeWithFieldsFromANewerVersionIsRead() {
    SliceNode node =
        json.unmarshal(
            """
            {"apiVersion": "smslice.io/v1alpha1", "kind": "SliceNode",
             "metadata": {"name": "gpu-1"},
             "status": {"later": 1, "backend": "simulated",
               "gpus": [{"uuid": "GPU-1", "index": 0, "later": true,
                         "smGroups": [{"index": 0, "later": "x"}],
                         "migInstances": [{"later": 2}]}],
               "claims": [{"namespace": "a", "name": "b", "gpuUuid": "GPU-1", "serving": true,
                           "later": [1, 2]}],
               "conditions": [{"type": "Ready", "status": "True", "later": {}}]}}
            """,
            SliceNode.class);
    assertThat(node.getStatus().getClaims().getFirst().getName()).isEqualTo("b");
    assertThat(node.getStatus().getGpus().getFirst().getUuid()).isEqualTo("GPU-1");
  }

  @Test
  void aSliceClaimWithFieldsFromANewerVersionIsRead() {
    SliceClaim claim =
        json.unmarshal(
            """
            {"apiVersion": "smslice.io/v1alpha1", "kind": "SliceClaim",
             "metadata": {"name": "c", "namespace": "n"},
             "spec": {"sms": 16, "later": 1, "selector": {"later": 2}},
             "status": {"phase": "Bound", "later": 3,
               "binding": {"node": "gpu-1", "gpuUuid": "GPU-1", "later": 4},
               "conditions": [{"type": "Ready", "status": "True", "later": 5}]}}
            """,
            SliceClaim.class);
    assertThat(claim.getSpec().getSms()).isEqualTo(16);
    assertThat(claim.getStatus().getBinding().getNode()).isEqualTo("gpu-1");
  }
}
