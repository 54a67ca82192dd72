package io.smslice.operator.dra;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.claim.GpuSelector;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplateSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceClaimSpecsTest {
  static SliceClaimSpec spec(int sms, String memory, Isolation isolation) {
    SliceClaimSpec s = new SliceClaimSpec();
    s.setSms(sms);
    s.setMemory(memory == null ? null : new Quantity(memory));
    s.setIsolation(isolation);
    return s;
  }

  static SliceClaim claim(String name, String uid, SliceClaimSpec spec) {
    SliceClaim c = new SliceClaim();
    c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").withUid(uid).build());
    c.setSpec(spec);
    return c;
  }

  @Test
  void greenClaimsAreServedByDraAndMigAndMpsClaimsAreNot() {
    assertThat(ResourceClaimSpecs.servedByDra(spec(16, null, Isolation.Compute))).isTrue();
    assertThat(ResourceClaimSpecs.servedByDra(spec(16, null, Isolation.Auto))).isTrue();
    assertThat(ResourceClaimSpecs.servedByDra(spec(16, "10Gi", Isolation.Memory))).isFalse();
    assertThat(ResourceClaimSpecs.servedByDra(spec(16, null, Isolation.Shared))).isFalse();
    assertThat(ResourceClaimSpecs.servedByDra(null)).isFalse();
  }

  @Test
  void theRequestConsumesSmsAndMemoryOfOneSmsliceDevice() {
    SliceClaimSpec s = spec(20, "8Gi", Isolation.Compute);
    s.setPriority(Priority.LatencyCritical);
    Map<String, Object> json = asMap(ResourceClaimSpecs.spec(s));

    assertThat(json)
        .isEqualTo(
            Map.of(
                "devices",
                Map.of(
                    "requests",
                    List.of(
                        Map.of(
                            "name",
                            "slice",
                            "exactly",
                            Map.of(
                                "deviceClassName",
                                "sm.smslice.io",
                                "allocationMode",
                                "ExactCount",
                                "count",
                                1,
                                "capacity",
                                Map.of("requests", Map.of("sms", "20", "memory", "8Gi"))))),
                    "config",
                    List.of(
                        Map.of(
                            "requests",
                            List.of("slice"),
                            "opaque",
                            Map.of(
                                "driver",
                                "smslice.io",
                                "parameters",
                                Map.of(
                                    "apiVersion",
                                    "smslice.io/v1alpha1",
                                    "kind",
                                    "SliceConfig",
                                    "priority",
                                    "LatencyCritical")))))));
  }

  @Test
  void noMemoryMeansNoMemoryRequestAndTheProductBecomesACelSelector() {
    SliceClaimSpec s = spec(8, null, Isolation.Auto);
    GpuSelector selector = new GpuSelector();
    selector.setProduct("NVIDIA \"H200\"");
    s.setSelector(selector);
    Map<String, Object> exactly = exactly(asMap(ResourceClaimSpecs.spec(s)));

    assertThat(exactly.get("capacity")).isEqualTo(Map.of("requests", Map.of("sms", "8")));
    assertThat(exactly.get("selectors"))
        .isEqualTo(
            List.of(
                Map.of(
                    "cel",
                    Map.of(
                        "expression",
                        "device.attributes[\"smslice.io\"].model == \"NVIDIA \\\"H200\\\"\""))));
  }

  @Test
  void theResourceClaimHasTheClaimsNameAndIsControlledByIt() {
    SliceClaim c = claim("train", "uid-1", spec(16, null, Isolation.Compute));
    GenericKubernetesResource rc = ResourceClaimSpecs.claimFor(c);

    assertThat(rc.getApiVersion()).isEqualTo("resource.k8s.io/v1");
    assertThat(rc.getKind()).isEqualTo("ResourceClaim");
    assertThat(rc.getMetadata().getName()).isEqualTo("train");
    assertThat(rc.getMetadata().getNamespace()).isEqualTo("ns");
    var owner = rc.getMetadata().getOwnerReferences().getFirst();
    assertThat(owner.getKind()).isEqualTo("SliceClaim");
    assertThat(owner.getApiVersion()).isEqualTo("smslice.io/v1alpha1");
    assertThat(owner.getUid()).isEqualTo("uid-1");
    assertThat(owner.getController()).isTrue();
    assertThat(ResourceClaimSpecs.controlledBy(rc, c)).isTrue();
    assertThat(ResourceClaimSpecs.controlledBy(rc, claim("train", "uid-2", c.getSpec()))).isFalse();
  }

  @Test
  void theDigestChangesWithTheSizeOnly() {
    SliceClaim a = claim("a", "u", spec(16, null, Isolation.Compute));
    SliceClaim sameSize = claim("b", "v", spec(16, null, Isolation.Compute));
    SliceClaim bigger = claim("a", "u", spec(24, null, Isolation.Compute));

    String digest = ResourceClaimSpecs.digestOf(ResourceClaimSpecs.claimFor(a));
    assertThat(digest).isNotBlank();
    assertThat(ResourceClaimSpecs.digestOf(ResourceClaimSpecs.claimFor(sameSize)))
        .isEqualTo(digest);
    assertThat(ResourceClaimSpecs.digestOf(ResourceClaimSpecs.claimFor(bigger)))
        .isNotEqualTo(digest);
  }

  @Test
  void aTemplateBecomesAResourceClaimTemplateWithTheSameClaimSpec() {
    SliceClaimTemplate t = new SliceClaimTemplate();
    t.setMetadata(
        new ObjectMetaBuilder().withName("tpl").withNamespace("ns").withUid("t1").build());
    SliceClaimTemplateSpec ts = new SliceClaimTemplateSpec();
    ts.setSpec(spec(32, "16Gi", Isolation.Compute));
    t.setSpec(ts);
    GenericKubernetesResource rct = ResourceClaimSpecs.templateFor(t);

    assertThat(rct.getKind()).isEqualTo("ResourceClaimTemplate");
    assertThat(rct.getMetadata().getName()).isEqualTo("tpl");
    assertThat(rct.getMetadata().getOwnerReferences().getFirst().getKind())
        .isEqualTo("SliceClaimTemplate");
    Map<String, Object> spec = asMap(rct.getAdditionalProperties().get("spec"));
    assertThat(spec.get("spec")).isEqualTo(asMap(ResourceClaimSpecs.spec(ts.getSpec())));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> asMap(Object o) {
    return Serialization.unmarshal(Serialization.asJson(o), Map.class);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> exactly(Map<String, Object> spec) {
    var devices = (Map<String, Object>) spec.get("devices");
    var request = ((List<Map<String, Object>>) devices.get("requests")).getFirst();
    return (Map<String, Object>) request.get("exactly");
  }
}
