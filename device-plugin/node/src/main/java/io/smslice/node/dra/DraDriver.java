package io.smslice.node.dra;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The names smslice's DRA driver is known by (docs/dra.md): the driver, the CDI kind of its claims,
 * and the resource.k8s.io/v1 types it reads and writes. fabric8 7.4 has no model classes for
 * resource.k8s.io/v1 (its newest is v1beta2, without consumable capacity), so these are handled as
 * generic resources.
 */
public final class DraDriver {
  public static final String NAME = "smslice.io";

  /** The CDI kind ("vendor/class") of the devices the CDI spec files describe. */
  public static final String CDI_KIND = "smslice.io/claim";

  public static final String API_VERSION = "resource.k8s.io/v1";

  public static final ResourceDefinitionContext RESOURCE_CLAIMS =
      context("ResourceClaim", "resourceclaims", true);
  public static final ResourceDefinitionContext RESOURCE_SLICES =
      context("ResourceSlice", "resourceslices", false);

  private DraDriver() {}

  /** The device name of a GPU in this node's ResourceSlice. */
  public static String deviceName(int gpuIndex) {
    return "gpu-" + gpuIndex;
  }

  /** The fully qualified CDI device name of a prepared claim. */
  public static String cdiDeviceId(String claimUid) {
    return CDI_KIND + "=" + claimUid;
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup("resource.k8s.io")
        .withVersion("v1")
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }
}
