package io.smslice.operator.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SliceClaims as ResourceClaims: one request {@value DraApi#REQUEST} for exactly one device of the
 * class {@value DraApi#DEVICE_CLASS}, consuming the claim's SMs and memory from the GPU's
 * capacities {@code sms} and {@code memory} (the kube-scheduler rounds up to the GPU's SM group
 * size), a CEL selector for the GPU product, and the opaque SliceConfig that carries the priority.
 */
public final class ResourceClaimSpecs {
  private ResourceClaimSpecs() {}

  /**
   * Whether a SliceClaim of this spec is served through DRA on a DRA cluster: Compute and Auto
   * claims (green slices). Memory (MIG) and Shared (MPS) claims stay on the device plugin.
   */
  public static boolean servedByDra(SliceClaimSpec spec) {
    return spec != null
        && spec.getSms() != null
        && (spec.getIsolation() == Isolation.Compute || spec.getIsolation() == Isolation.Auto);
  }

  /** The ResourceClaim spec for a SliceClaim spec that {@link #servedByDra} accepts. */
  public static Map<String, Object> spec(SliceClaimSpec spec) {
    Map<String, Object> requests = new LinkedHashMap<>();
    requests.put("sms", Integer.toString(spec.getSms()));
    if (spec.getMemory() != null) {
      requests.put("memory", spec.getMemory().toString());
    }
    Map<String, Object> exactly = new LinkedHashMap<>();
    exactly.put("deviceClassName", DraApi.DEVICE_CLASS);
    exactly.put("allocationMode", "ExactCount");
    exactly.put("count", 1);
    String product = spec.getSelector() == null ? null : spec.getSelector().getProduct();
    if (product != null && !product.isEmpty()) {
      exactly.put(
          "selectors",
          List.of(
              Map.of(
                  "cel",
                  Map.of(
                      "expression",
                      "device.attributes[\""
                          + DraApi.DRIVER
                          + "\"].model == "
                          + celString(product)))));
    }
    exactly.put("capacity", Map.of("requests", requests));
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("apiVersion", "smslice.io/v1alpha1");
    parameters.put("kind", "SliceConfig");
    Priority priority = spec.getPriority() == null ? Priority.Standard : spec.getPriority();
    parameters.put("priority", priority.name());
    Map<String, Object> config =
        Map.of(
            "requests",
            List.of(DraApi.REQUEST),
            "opaque",
            Map.of("driver", DraApi.DRIVER, "parameters", parameters));
    Map<String, Object> devices = new LinkedHashMap<>();
    devices.put("requests", List.of(Map.of("name", DraApi.REQUEST, "exactly", exactly)));
    devices.put("config", List.of(config));
    return Map.of("devices", devices);
  }

  /** The ResourceClaim of the same name and namespace, controlled by the SliceClaim. */
  public static GenericKubernetesResource claimFor(SliceClaim claim) {
    Map<String, Object> spec = spec(claim.getSpec());
    return resource("ResourceClaim", claim, spec, spec);
  }

  /** The ResourceClaimTemplate of the same name and namespace, controlled by the template. */
  public static GenericKubernetesResource templateFor(SliceClaimTemplate template) {
    Map<String, Object> claimSpec = spec(template.getSpec().getSpec());
    return resource("ResourceClaimTemplate", template, Map.of("spec", claimSpec), claimSpec);
  }

  /** The digest of the spec the operator would write now (see {@link #digestOf}). */
  public static String digest(Map<String, Object> spec) {
    try {
      byte[] sha =
          MessageDigest.getInstance("SHA-256")
              .digest(Serialization.asJson(spec).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The digest a ResourceClaim(Template) the operator made was made with, or null. */
  public static String digestOf(HasMetadata made) {
    var annotations = made.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(DraApi.SPEC_DIGEST_ANNOTATION);
  }

  /** Whether {@code r} is controlled by {@code owner} (its uid, as a controller reference). */
  public static boolean controlledBy(HasMetadata r, HasMetadata owner) {
    var refs = r.getMetadata().getOwnerReferences();
    return refs != null
        && refs.stream()
            .anyMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && owner.getMetadata().getUid() != null
                        && owner.getMetadata().getUid().equals(o.getUid()));
  }

  private static GenericKubernetesResource resource(
      String kind, HasMetadata owner, Map<String, Object> spec, Map<String, Object> digested) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(DraApi.API_VERSION);
    r.setKind(kind);
    r.setMetadata(
        new ObjectMetaBuilder()
            .withName(owner.getMetadata().getName())
            .withNamespace(owner.getMetadata().getNamespace())
            .addToAnnotations(DraApi.SPEC_DIGEST_ANNOTATION, digest(digested))
            .addToOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(owner.getApiVersion())
                    .withKind(owner.getKind())
                    .withName(owner.getMetadata().getName())
                    .withUid(owner.getMetadata().getUid())
                    .withController(true)
                    .build())
            .build());
    r.setAdditionalProperty("spec", spec);
    return r;
  }

  /** A CEL string literal. */
  static String celString(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
