package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import io.smslice.api.v1alpha1.SmsliceApi;

/** A slice of one GPU that a workload's pods run in: "16 SMs, 8 GiB, latency-critical". */
@Group(SmsliceApi.GROUP)
@Version(SmsliceApi.VERSION)
@ShortNames("slc")
@AdditionalPrinterColumn(name = "PHASE", jsonPath = ".status.phase")
@AdditionalPrinterColumn(
    name = "READY",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status")
@AdditionalPrinterColumn(
    name = "SMS",
    jsonPath = ".status.binding.sms",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "REQUESTED",
    jsonPath = ".spec.sms",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(name = "MEMORY", jsonPath = ".spec.memory")
@AdditionalPrinterColumn(name = "ISOLATION", jsonPath = ".spec.isolation")
@AdditionalPrinterColumn(name = "NODE", jsonPath = ".status.binding.node")
@AdditionalPrinterColumn(name = "GPU", jsonPath = ".status.binding.gpuUuid")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
    value =
        "!has(oldSelf.status) || !has(oldSelf.status.binding)"
            + " || (has(self.spec.selector) == has(oldSelf.spec.selector)"
            + " && (!has(self.spec.selector) || self.spec.selector == oldSelf.spec.selector))",
    message = "spec.selector cannot change once the claim is bound: delete and re-create the claim")
public class SliceClaim extends CustomResource<SliceClaimSpec, SliceClaimStatus>
    implements Namespaced {

  @Override
  @Required
  @JsonPropertyDescription("What the workload asks for.")
  public SliceClaimSpec getSpec() {
    return super.getSpec();
  }

  @Override
  @JsonPropertyDescription("Where the claim was placed and how that is going; set by the operator.")
  public SliceClaimStatus getStatus() {
    return super.getStatus();
  }
}
