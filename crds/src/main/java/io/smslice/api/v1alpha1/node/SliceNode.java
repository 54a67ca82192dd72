package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;
import io.smslice.api.v1alpha1.SmsliceApi;

/**
 * The GPUs of one node as its node side sees them. Cluster scoped, named after the node, written
 * only by that node's agent; the operator places claims from it.
 */
@Group(SmsliceApi.GROUP)
@Version(SmsliceApi.VERSION)
@ShortNames("sln")
@AdditionalPrinterColumn(name = "BACKEND", jsonPath = ".status.backend")
@AdditionalPrinterColumn(name = "AGENT", jsonPath = ".status.agentVersion")
@AdditionalPrinterColumn(
    name = "HEARTBEAT",
    jsonPath = ".status.heartbeat",
    type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class SliceNode extends CustomResource<Void, SliceNodeStatus> {

  @Override
  @JsonPropertyDescription("The node's GPUs and agent, as last observed by the node side.")
  public SliceNodeStatus getStatus() {
    return super.getStatus();
  }
}
