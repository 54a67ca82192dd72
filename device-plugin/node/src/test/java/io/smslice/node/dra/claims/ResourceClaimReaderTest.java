package io.smslice.node.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.smslice.api.v1alpha1.claim.Priority;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ResourceClaimReaderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ResourceClaimReader reader = new ResourceClaimReader("node-a");

  private static JsonNode claim(String results, String config) throws Exception {
    return JSON.readTree(
        """
        {"metadata": {"name": "c", "namespace": "ml", "uid": "u1", "generation": 3},
         "status": {"allocation": {"devices": {"results": [%s], "config": [%s]}}}}
        """
            .formatted(results, config));
  }

  private static final String OURS =
      """
      {"request": "slice/small", "driver": "smslice.io", "pool": "node-a", "device": "gpu-1",
       "shareID": "s-1", "consumedCapacity": {"sms": "24", "memory": "8Gi"}}
      """;

  @Test
  void readsTheDeviceItsCapacityAndTheConfigClaimOverClass() throws Exception {
    String classConfig =
        """
        {"source": "FromClass", "opaque": {"driver": "smslice.io", "parameters":
          {"apiVersion": "smslice.io/v1alpha1", "kind": "SliceConfig", "priority": "BestEffort",
           "transparent": false}}}
        """;
    String claimConfig =
        """
        {"source": "FromClaim", "requests": ["slice"], "opaque": {"driver": "smslice.io",
          "parameters": {"apiVersion": "smslice.io/v1alpha1", "kind": "SliceConfig",
          "priority": "LatencyCritical"}}},
        {"source": "FromClaim", "requests": ["other"], "opaque": {"driver": "smslice.io",
          "parameters": {"kind": "Nonsense"}}},
        {"source": "FromClaim", "opaque": {"driver": "gpu.nvidia.com", "parameters": {"x": 1}}}
        """;
    // the class's entry is listed last here: the claim's still wins
    AllocatedClaim c = reader.read(claim(OURS, claimConfig + "," + classConfig), "ml", "c", "u1");
    assertThat(c.device()).isEqualTo("gpu-1");
    assertThat(c.pool()).isEqualTo("node-a");
    assertThat(c.request()).isEqualTo("slice/small");
    assertThat(c.shareId()).isEqualTo("s-1");
    assertThat(c.sms()).isEqualTo(24);
    assertThat(c.memoryBytes()).isEqualTo(8L << 30);
    assertThat(c.generation()).isEqualTo(3);
    assertThat(c.config()).isEqualTo(new SliceConfig(Priority.LatencyCritical, Optional.of(false)));
  }

  @Test
  void withoutConfigTheDefaultsHold() throws Exception {
    AllocatedClaim c = reader.read(claim(OURS, ""), "ml", "c", "u1");
    assertThat(c.config()).isEqualTo(SliceConfig.DEFAULTS);
  }

  @Test
  void refusesWhatTheNodeCannotServe() throws Exception {
    assertThatThrownBy(() -> reader.read(claim(OURS, ""), "ml", "c", "u2"))
        .hasMessageStartingWith("smslice: claim ml/c has uid u1, not u2");
    assertThatThrownBy(
            () ->
                reader.read(
                    JSON.readTree("{\"metadata\": {\"uid\": \"u1\"}, \"status\": {}}"),
                    "ml",
                    "c",
                    "u1"))
        .hasMessage("smslice: claim ml/c is not allocated yet");
    assertThatThrownBy(() -> reader.read(claim(OURS + "," + OURS, ""), "ml", "c", "u1"))
        .hasMessageContaining("was allocated 2 smslice.io devices: one claim is served on one GPU");
    assertThatThrownBy(
            () -> reader.read(claim(OURS.replace("\"sms\": \"24\", ", ""), ""), "ml", "c", "u1"))
        .hasMessageContaining("has no consumed capacity 'sms'");
    assertThatThrownBy(
            () ->
                reader.read(
                    claim(
                        OURS,
                        """
                        {"source": "FromClaim", "opaque": {"driver": "smslice.io", "parameters":
                          {"apiVersion": "smslice.io/v1beta9", "kind": "SliceConfig"}}}
                        """),
                    "ml",
                    "c",
                    "u1"))
        .hasMessageContaining("apiVersion smslice.io/v1beta9, kind SliceConfig: this node reads");
  }

  @Test
  void sliceConfigNamesItsMistakes() throws Exception {
    String p = "smslice: claim ml/c";
    assertThatThrownBy(
            () ->
                SliceConfig.parse(
                    JSON.readTree(
                        "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"priority\":\"Urgent\"}"),
                    p))
        .hasMessage(
            "smslice: claim ml/c has priority 'Urgent' in its SliceConfig: write LatencyCritical,"
                + " Standard or BestEffort");
    assertThatThrownBy(
            () ->
                SliceConfig.parse(
                    JSON.readTree(
                        "{\"apiVersion\":\"smslice.io/v1alpha1\",\"kind\":\"SliceConfig\",\"transparent\":\"yes\"}"),
                    p))
        .hasMessageContaining("write true or false");
    assertThatThrownBy(() -> SliceConfig.parse(JSON.readTree("[1]"), p))
        .hasMessageContaining("not an object");
  }
}
