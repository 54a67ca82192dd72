package io.smslice.node.events;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.node.allocation.ClusterView;
import io.smslice.node.claims.ClaimState;
import io.smslice.node.claims.ClaimStates;
import io.smslice.node.mps.ClientFaultRecovery;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Tells the users of a GPU that one MPS client's fault reached their work too: a Warning event
 * (reason {@value #REASON}) on each claim served on the GPU and on each of those claims' pods on
 * this node.
 */
public final class ClientFaultEvents implements ClientFaultRecovery.Notice {
  public static final String REASON = "GpuClientFault";

  private final WarningEvents events;
  private final String nodeName;
  private final ClusterView cluster;
  private final ClaimStates claims;

  public ClientFaultEvents(
      KubernetesClient client, String nodeName, ClusterView cluster, ClaimStates claims) {
    this.events = new WarningEvents(client, nodeName);
    this.nodeName = nodeName;
    this.cluster = cluster;
    this.claims = claims;
  }

  @Override
  public void clientFault(String gpuUuid, long xid, Instant at) {
    String message =
        "Xid "
            + xid
            + " at "
            + DateTimeFormatter.ISO_INSTANT.format(at.truncatedTo(ChronoUnit.MILLIS))
            + ": a CUDA client on GPU "
            + gpuUuid
            + " (node "
            + nodeName
            + ") faulted, and MPS reports that fault to every client of the GPU: this claim's"
            + " CUDA work failed too. Processes that saw the error must exit; restart them.";
    Map<String, ObjectReference> targets = new LinkedHashMap<>();
    for (ClaimState c : claims.claims()) {
      if (c.gpuUuid().equalsIgnoreCase(gpuUuid)) {
        targets.put("claim " + c.key(), WarningEvents.claimRef(c.namespace(), c.name(), null));
      }
    }
    for (Pod pod : cluster.podsOnNode(nodeName)) {
      Map<String, String> a = pod.getMetadata().getAnnotations();
      String claimName = a == null ? null : a.get(SmsliceApi.CLAIM_ANNOTATION);
      String ns = pod.getMetadata().getNamespace();
      if (claimName != null && !WarningEvents.terminated(pod)) {
        Optional<SliceClaim> claim = cluster.claim(ns, claimName);
        if (claim.isPresent() && onGpu(claim.get(), gpuUuid)) {
          targets.putIfAbsent(
              "claim " + ns + "/" + claimName,
              WarningEvents.claimRef(ns, claimName, claim.get().getMetadata().getUid()));
          targets.put("pod " + ns + "/" + pod.getMetadata().getName(), WarningEvents.podRef(pod));
        }
      }
    }
    targets.forEach((what, ref) -> events.warn(what, ref, REASON, message, at));
  }

  private boolean onGpu(SliceClaim claim, String gpuUuid) {
    return claim.getStatus() != null
        && claim.getStatus().getBinding() != null
        && nodeName.equals(claim.getStatus().getBinding().getNode())
        && gpuUuid.equalsIgnoreCase(claim.getStatus().getBinding().getGpuUuid());
  }
}
