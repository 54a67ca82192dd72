package io.smslice.agent.claims;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.smslice.agent.Agent;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.ClaimStatus;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.gpu.GpuException;
import io.smslice.gpu.GpuInventory;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches the SliceClaims the operator labelled with this node and keeps the agent serving exactly
 * the bound, green-mode ones: serve on bind, resize on a new binding, release otherwise.
 */
public final class ClaimWatcher implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimWatcher.class.getName());
  private static final long RESYNC_MILLIS = 60_000;

  private final SharedIndexInformer<SliceClaim> informer;

  /** Bound claims the agent could not serve, with why, until served or released. */
  private final Map<String, ClaimStatus> failures;

  private ClaimWatcher(
      SharedIndexInformer<SliceClaim> informer, Map<String, ClaimStatus> failures) {
    this.informer = informer;
    this.failures = failures;
  }

  /** The bound claims of this node the agent failed to serve, and why. */
  public List<ClaimStatus> failures() {
    return List.copyOf(failures.values());
  }

  public static ClaimWatcher start(
      KubernetesClient client, String nodeName, GpuInventory inventory, Agent agent) {
    Map<String, ClaimStatus> failures = new ConcurrentHashMap<>();
    ResourceEventHandler<SliceClaim> handler =
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(SliceClaim claim) {
            apply(claim, nodeName, inventory, agent, failures);
          }

          @Override
          public void onUpdate(SliceClaim before, SliceClaim after) {
            apply(after, nodeName, inventory, agent, failures);
          }

          @Override
          public void onDelete(SliceClaim claim, boolean finalStateUnknown) {
            String namespace = claim.getMetadata().getNamespace();
            String name = claim.getMetadata().getName();
            failures.remove(namespace + "/" + name);
            agent.release(namespace, name);
            agent.forgetTokens(namespace, name);
          }
        };
    SharedIndexInformer<SliceClaim> informer =
        client
            .resources(SliceClaim.class)
            .inAnyNamespace()
            .withLabel(SmsliceApi.NODE_LABEL, nodeName)
            .inform(handler, RESYNC_MILLIS);
    return new ClaimWatcher(informer, failures);
  }

  static void apply(
      SliceClaim claim,
      String nodeName,
      GpuInventory inventory,
      Agent agent,
      Map<String, ClaimStatus> failures) {
    String namespace = claim.getMetadata().getNamespace();
    String name = claim.getMetadata().getName();
    Optional<BoundClaim> bound = boundHere(claim, nodeName, inventory);
    if (bound.isEmpty()) {
      failures.remove(namespace + "/" + name);
      agent.release(namespace, name);
      return;
    }
    try {
      agent.serve(bound.get());
      failures.remove(bound.get().key());
    } catch (GpuException | IOException | RuntimeException e) {
      BoundClaim b = bound.get();
      failures.put(
          b.key(),
          new ClaimStatus(
              namespace, name, b.gpuUuid(), b.groups(), false, String.valueOf(e.getMessage())));
      LOG.log(
          System.Logger.Level.ERROR,
          "cannot serve claim " + namespace + "/" + name + ": " + e.getMessage(),
          e);
    }
  }

  /** The claim as the agent serves it, when it is bound to a green-mode GPU of this node. */
  public static Optional<BoundClaim> boundHere(
      SliceClaim claim, String nodeName, GpuInventory inventory) {
    if (claim.getStatus() == null || claim.getStatus().getBinding() == null) {
      return Optional.empty();
    }
    Phase phase = claim.getStatus().getPhase();
    Binding binding = claim.getStatus().getBinding();
    if ((phase != Phase.Bound && phase != Phase.Resizing)
        || !nodeName.equals(binding.getNode())
        || binding.getMode() != GpuMode.Green
        || binding.getSmGroups() == null
        || binding.getSmGroups().isEmpty()
        || claim.getMetadata().getDeletionTimestamp() != null) {
      return Optional.empty();
    }
    Optional<Long> gpuMemory =
        inventory.devices().stream()
            .filter(d -> d.uuid().equals(binding.getGpuUuid()))
            .map(d -> d.memoryBytes())
            .findFirst();
    if (gpuMemory.isEmpty()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "claim {0}/{1} is bound to GPU {2}, which this node does not have",
          claim.getMetadata().getNamespace(),
          claim.getMetadata().getName(),
          binding.getGpuUuid());
      return Optional.empty();
    }
    Quantity memory = claim.getSpec() == null ? null : claim.getSpec().getMemory();
    long quota =
        memory == null ? gpuMemory.get() : Quantity.getAmountInBytes(memory).longValueExact();
    return Optional.of(
        new BoundClaim(
            claim.getMetadata().getNamespace(),
            claim.getMetadata().getName(),
            binding.getGpuUuid(),
            binding.getSmGroups(),
            quota,
            claim.getSpec() == null || claim.getSpec().getPriority() == null
                ? io.smslice.api.v1alpha1.claim.Priority.Standard
                : claim.getSpec().getPriority()));
  }

  @Override
  public void close() {
    informer.close();
  }
}
