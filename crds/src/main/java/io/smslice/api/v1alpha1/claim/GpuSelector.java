package io.smslice.api.v1alpha1.claim;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.LinkedHashMap;
import java.util.Map;

/** Restricts where a claim may be placed. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class GpuSelector {
  @Pattern("^\\S.*$")
  @JsonPropertyDescription("GPU product name the claim needs, exactly as the SliceNode reports it.")
  private String product;

  @JsonPropertyDescription("Labels the node must carry, as in a pod's nodeSelector.")
  private Map<String, String> nodeLabels = new LinkedHashMap<>();

  public String getProduct() {
    return product;
  }

  public void setProduct(String product) {
    this.product = product;
  }

  public Map<String, String> getNodeLabels() {
    return nodeLabels;
  }

  public void setNodeLabels(Map<String, String> nodeLabels) {
    this.nodeLabels = nodeLabels;
  }
}
