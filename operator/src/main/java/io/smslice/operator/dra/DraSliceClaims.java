package io.smslice.operator.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.operator.claim.ClaimStatuses;
import io.smslice.operator.events.EventRecorder;
import java.time.Clock;
import java.util.Objects;

/**
 * The operator's side of a SliceClaim on a DRA cluster: makes the ResourceClaim of the same name
 * (controlled by the SliceClaim, so the garbage collector removes it with the claim), makes it
 * again when the SliceClaim's spec changed and nothing uses it, and derives the SliceClaim's status
 * from it. The kube-scheduler allocates it and the node prepares it; the operator places nothing.
 */
public final class DraSliceClaims {
  private final KubernetesClient client;
  private final EventRecorder events;
  private final Clock clock;

  public DraSliceClaims(KubernetesClient client, EventRecorder events, Clock clock) {
    this.client = client;
    this.events = events;
    this.clock = clock;
  }

  /** Brings the ResourceClaim in line with the SliceClaim; returns the status to record. */
  public SliceClaimStatus sync(SliceClaim claim) {
    GenericKubernetesResource desired = ResourceClaimSpecs.claimFor(claim);
    var claims =
        client
            .genericKubernetesResources(DraApi.RESOURCE_CLAIMS)
            .inNamespace(claim.getMetadata().getNamespace());
    String name = claim.getMetadata().getName();
    GenericKubernetesResource live = claims.withName(name).get();
    if (live == null) {
      live = create(claims.resource(desired), claims.withName(name));
    }
    DraClaimStatuses.Found found;
    if (!ResourceClaimSpecs.controlledBy(live, claim)) {
      found = new DraClaimStatuses.Foreign();
    } else {
      JsonNode json = Serialization.jsonMapper().valueToTree(live);
      boolean changed =
          !Objects.equals(ResourceClaimSpecs.digestOf(live), ResourceClaimSpecs.digestOf(desired));
      boolean inUse =
          ClaimAllocation.of(json).isPresent() || !ClaimAllocation.reservedFor(json).isEmpty();
      if (changed && !inUse) {
        // Specs are immutable: the claim is made again with the new size. The next reconcile
        // (the informer sees the delete) creates it.
        claims.resource(live).delete();
        events.normal(claim, "ResourceClaimReplaced", "ResourceClaim made again for the new spec");
        json = Serialization.jsonMapper().createObjectNode();
        changed = false;
      }
      found = new DraClaimStatuses.Own(json, changed);
    }
    SliceClaimStatus next = DraClaimStatuses.next(claim, found, clock.instant());
    announce(claim, claim.getStatus(), next);
    return next;
  }

  private GenericKubernetesResource create(
      io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> create,
      io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> reread) {
    try {
      return create.create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Made meanwhile (by another write of ours, or by someone else): judge what is there.
      GenericKubernetesResource now = reread.get();
      if (now == null) {
        throw e;
      }
      return now;
    }
  }

  /** Events when the Placed or Ready reason changes, as for device-plugin claims. */
  private void announce(SliceClaim claim, SliceClaimStatus old, SliceClaimStatus next) {
    Condition placed = condition(next, ClaimStatuses.PLACED);
    Condition ready = condition(next, ClaimStatuses.READY);
    if (placed != null && !Objects.equals(reason(old, ClaimStatuses.PLACED), placed.getReason())) {
      if (DraClaimStatuses.NAME_TAKEN.equals(placed.getReason())) {
        events.warning(claim, placed.getReason(), placed.getMessage());
      } else if (DraClaimStatuses.ALLOCATED.equals(placed.getReason())) {
        events.normal(claim, placed.getReason(), placed.getMessage());
      }
    }
    if (ready != null && !Objects.equals(reason(old, ClaimStatuses.READY), ready.getReason())) {
      if (DraClaimStatuses.NODE_CANNOT_SERVE.equals(ready.getReason())) {
        events.warning(claim, ready.getReason(), ready.getMessage());
      } else if (DraClaimStatuses.SERVING.equals(ready.getReason())) {
        events.normal(claim, ready.getReason(), ready.getMessage());
      }
    }
  }

  private static String reason(SliceClaimStatus s, String type) {
    Condition c = s == null ? null : condition(s, type);
    return c == null ? null : c.getReason();
  }

  private static Condition condition(SliceClaimStatus s, String type) {
    if (s.getConditions() == null) {
      return null;
    }
    return s.getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }
}
