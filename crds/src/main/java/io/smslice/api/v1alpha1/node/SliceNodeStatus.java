package io.smslice.api.v1alpha1.node;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** What the node side observed on its node, kept current by it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public class SliceNodeStatus {
  // Bounded, as each GPU's rules are costed per item by the API server.
  @Size(max = 64)
  @JsonPropertyDescription("The node's GPUs.")
  private List<NodeGpu> gpus = new ArrayList<>();

  @JsonPropertyDescription("Claims bound to this node and how the node serves each.")
  private List<ServedClaim> claims = new ArrayList<>();

  @Required
  @JsonPropertyDescription("Version of the smslice node agent that wrote this object.")
  private String agentVersion;

  @JsonPropertyDescription(
      "GPU backend of the agent: cuda (real GPUs) or simulated (no GPU; CI and the demo).")
  private String backend;

  @Required
  @JsonPropertyDescription(
      "RFC 3339 time of the agent's last update; a stale heartbeat marks the node lost.")
  private String heartbeat;

  public List<NodeGpu> getGpus() {
    return gpus;
  }

  public void setGpus(List<NodeGpu> gpus) {
    this.gpus = gpus;
  }

  public List<ServedClaim> getClaims() {
    return claims;
  }

  public void setClaims(List<ServedClaim> claims) {
    this.claims = claims;
  }

  public String getAgentVersion() {
    return agentVersion;
  }

  public void setAgentVersion(String agentVersion) {
    this.agentVersion = agentVersion;
  }

  public String getBackend() {
    return backend;
  }

  public void setBackend(String backend) {
    this.backend = backend;
  }

  public String getHeartbeat() {
    return heartbeat;
  }

  public void setHeartbeat(String heartbeat) {
    this.heartbeat = heartbeat;
  }
}
