package io.smslice.operator.dra;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;

/** The names both sides of smslice's DRA driver agree on, and the resource.k8s.io/v1 kinds. */
public final class DraApi {
  /** The driver's name, the domain of its device attributes and capacities. */
  public static final String DRIVER = "smslice.io";

  /** The DeviceClass the chart installs (selector: device.driver == "smslice.io"). */
  public static final String DEVICE_CLASS = "sm.smslice.io";

  /** The one request in a ResourceClaim made for a SliceClaim. */
  public static final String REQUEST = "slice";

  /** The name of the claim in a pod's spec.resourceClaims and containers' resources.claims. */
  public static final String POD_CLAIM = "smslice";

  public static final String GROUP = "resource.k8s.io";
  public static final String VERSION = "v1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /**
   * Annotation on a ResourceClaim(Template) the operator made: a digest of the spec it was made
   * with. Specs are immutable; a SliceClaim(Template) whose digest differs needs a new one.
   */
  public static final String SPEC_DIGEST_ANNOTATION = "smslice.io/spec-digest";

  public static final ResourceDefinitionContext RESOURCE_CLAIMS = context("ResourceClaim");
  public static final ResourceDefinitionContext RESOURCE_CLAIM_TEMPLATES =
      context("ResourceClaimTemplate");

  public static final GroupVersionKind RESOURCE_CLAIM_GVK =
      new GroupVersionKind(GROUP, VERSION, "ResourceClaim");

  private DraApi() {}

  private static ResourceDefinitionContext context(String kind) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(GROUP)
        .withVersion(VERSION)
        .withKind(kind)
        .withPlural(kind.toLowerCase(java.util.Locale.ROOT) + "s")
        .withNamespaced(true)
        .build();
  }
}
