package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import io.smslice.api.v1alpha1.SmsliceApi;

/**
 * A claim per pod, for replicated workloads: a pod annotated {@code smslice.io/claim-template} gets
 * its own SliceClaim made from this template, owned by the pod and removed with it (as Kubernetes'
 * ResourceClaimTemplate does for dynamic resource allocation).
 */
@Group(SmsliceApi.GROUP)
@Version(SmsliceApi.VERSION)
@ShortNames("slct")
@AdditionalPrinterColumn(
    name = "SMS",
    jsonPath = ".spec.spec.sms",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "ISOLATION", jsonPath = ".spec.spec.isolation")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class SliceClaimTemplate extends CustomResource<SliceClaimTemplateSpec, Void>
    implements Namespaced {

  @Override
  @Required
  @JsonPropertyDescription("The claim each pod gets.")
  public SliceClaimTemplateSpec getSpec() {
    return super.getSpec();
  }
}
