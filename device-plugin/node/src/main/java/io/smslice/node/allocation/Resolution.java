package io.smslice.node.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.SliceClaim;

/** The container an Allocate serves, and the claim whose slice it gets. */
public record Resolution(Pod pod, String container, SliceClaim claim) {
  public String namespace() {
    return pod.getMetadata().getNamespace();
  }

  public String podUid() {
    return pod.getMetadata().getUid();
  }

  public String claimName() {
    return claim.getMetadata().getName();
  }

  public Binding binding() {
    return claim.getStatus().getBinding();
  }

  @Override
  public String toString() {
    return namespace()
        + "/"
        + pod.getMetadata().getName()
        + " container "
        + container
        + " (claim "
        + claimName()
        + ")";
  }
}
