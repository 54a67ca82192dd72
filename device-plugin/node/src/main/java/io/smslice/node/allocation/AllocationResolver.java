package io.smslice.node.allocation;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.plugin.AllocationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds the container an Allocate is for. The kubelet passes only device ids, so the container is
 * inferred: a pod scheduled to this node, not running yet, annotated with a claim that is bound to
 * this node in the resource's mode, with a container that asks for exactly as many devices of this
 * resource as were allocated, and that was not allocated before (see {@link AllocationLedger}).
 *
 * <p>When several containers fit, the order is: a pod whose other containers were just allocated
 * (the kubelet admits one pod at a time, container by container), a claim whose MIG device is among
 * the devices, a claim on the GPU the devices are on, then the oldest pod (the kubelet admits pods
 * in creation order). Allocations are serialised, and a container is recorded only after its answer
 * was built, so two Allocates never get one container.
 */
public final class AllocationResolver {
  private final String nodeName;
  private final ClusterView cluster;
  private final AllocationLedger ledger;
  private final Duration waitForPod;
  private final Duration pollEvery;

  /** What one container was given. */
  public record Request(String resource, GpuMode mode, List<String> deviceIds, Set<String> gpus) {}

  /** Builds the container's answer; may refuse, and then nothing is recorded. */
  @FunctionalInterface
  public interface Answer<T> {
    T build(Resolution resolution) throws AllocationException;
  }

  private record Candidate(Resolution resolution, boolean started, boolean exact, boolean onGpu) {}

  /**
   * @param waitForPod how long to keep looking for the pod: the kubelet can see a pod a moment
   *     before the API server answers a list with it
   */
  public AllocationResolver(
      String nodeName,
      ClusterView cluster,
      AllocationLedger ledger,
      Duration waitForPod,
      Duration pollEvery) {
    this.nodeName = nodeName;
    this.cluster = cluster;
    this.ledger = ledger;
    this.waitForPod = waitForPod;
    this.pollEvery = pollEvery;
  }

  public String nodeName() {
    return nodeName;
  }

  public synchronized <T> T allocate(Request request, Answer<T> answer) throws AllocationException {
    Instant deadline = Instant.now().plus(waitForPod);
    List<String> misses = new ArrayList<>();
    while (true) {
      misses.clear();
      Optional<Candidate> best = candidates(request, misses).findFirst();
      if (best.isPresent()) {
        Resolution r = best.get().resolution();
        T result = answer.build(r);
        ledger.record(
            new AllocationLedger.Entry(
                r.podUid(),
                r.namespace(),
                r.pod().getMetadata().getName(),
                r.container(),
                request.resource(),
                r.claimName(),
                request.deviceIds()));
        return result;
      }
      if (!Instant.now().isBefore(deadline)) {
        throw new AllocationException(unresolved(request, misses));
      }
      sleep();
    }
  }

  /** The container the next Allocate of {@code count} devices would most likely be for. */
  public synchronized Optional<Resolution> next(String resource, GpuMode mode, int count) {
    List<String> ids = java.util.Collections.nCopies(count, "");
    return candidates(new Request(resource, mode, ids, Set.of()), new ArrayList<>())
        .findFirst()
        .map(Candidate::resolution);
  }

  private Stream<Candidate> candidates(Request request, List<String> misses) {
    List<Pod> pods = cluster.podsOnNode(nodeName);
    ledger.retain(pods.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet()));
    Map<String, Optional<SliceClaim>> claims = new HashMap<>();
    List<Candidate> found = new ArrayList<>();
    for (Pod pod : pods) {
      if (pod.getMetadata().getDeletionTimestamp() != null || !pending(pod)) {
        continue;
      }
      for (Container c : containers(pod)) {
        Integer asked = requested(c, request.resource());
        if (asked == null
            || ledger.allocated(pod.getMetadata().getUid(), c.getName(), request.resource())
            || started(pod, c.getName())) {
          continue;
        }
        String who = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        if (asked != request.deviceIds().size()) {
          misses.add(who + " asks for " + asked);
          continue;
        }
        String claimName = annotation(pod);
        if (claimName == null) {
          misses.add(who + " has no " + SmsliceApi.CLAIM_ANNOTATION + " annotation");
          continue;
        }
        String ns = pod.getMetadata().getNamespace();
        Optional<SliceClaim> claim =
            claims.computeIfAbsent(ns + "/" + claimName, k -> cluster.claim(ns, claimName));
        Optional<String> why = claim.map(this::unusable).orElse(Optional.of("does not exist"));
        if (why.isEmpty() && claim.get().getStatus().getBinding().getMode() != request.mode()) {
          why =
              Optional.of(
                  "is bound in "
                      + claim.get().getStatus().getBinding().getMode()
                      + " mode, not "
                      + request.mode());
        }
        if (why.isPresent()) {
          misses.add(who + ": claim " + claimName + " " + why.get());
          continue;
        }
        Binding b = claim.get().getStatus().getBinding();
        found.add(
            new Candidate(
                new Resolution(pod, c.getName(), claim.get()),
                ledger.started(pod.getMetadata().getUid()),
                b.getMigDeviceUuid() != null && request.deviceIds().contains(b.getMigDeviceUuid()),
                request.gpus().contains(b.getGpuUuid())));
      }
    }
    return found.stream()
        .sorted(
            Comparator.comparing((Candidate c) -> !c.started())
                .thenComparing(c -> !c.exact())
                .thenComparing(c -> !c.onGpu())
                .thenComparing(c -> created(c.resolution().pod()))
                .thenComparing(c -> c.resolution().toString()));
  }

  private Optional<String> unusable(SliceClaim claim) {
    if (claim.getStatus() == null || claim.getStatus().getBinding() == null) {
      return Optional.of("is not bound yet");
    }
    String node = claim.getStatus().getBinding().getNode();
    if (!nodeName.equals(node)) {
      return Optional.of("is bound to node " + node + ", not " + nodeName);
    }
    return Optional.empty();
  }

  private static boolean pending(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return phase == null || phase.equals("Pending");
  }

  /** Whether the container has run before: then its devices were allocated long ago. */
  private static boolean started(Pod pod, String container) {
    if (pod.getStatus() == null) {
      return false;
    }
    return Stream.concat(
            pod.getStatus().getInitContainerStatuses().stream(),
            pod.getStatus().getContainerStatuses().stream())
        .filter(s -> container.equals(s.getName()))
        .anyMatch(AllocationResolver::hasRun);
  }

  private static boolean hasRun(ContainerStatus s) {
    boolean restarted = s.getRestartCount() != null && s.getRestartCount() > 0;
    return restarted
        || (s.getState() != null
            && (s.getState().getRunning() != null || s.getState().getTerminated() != null));
  }

  private static List<Container> containers(Pod pod) {
    return Stream.concat(
            pod.getSpec().getInitContainers().stream(), pod.getSpec().getContainers().stream())
        .toList();
  }

  private static Integer requested(Container c, String resource) {
    if (c.getResources() == null) {
      return null;
    }
    Quantity q =
        c.getResources().getLimits() == null ? null : c.getResources().getLimits().get(resource);
    if (q == null && c.getResources().getRequests() != null) {
      q = c.getResources().getRequests().get(resource);
    }
    return q == null ? null : Quantity.getAmountInBytes(q).intValueExact();
  }

  private static String annotation(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a == null ? null : a.get(SmsliceApi.CLAIM_ANNOTATION);
  }

  private static String created(Pod pod) {
    String t = pod.getMetadata().getCreationTimestamp();
    return t == null ? "" : t;
  }

  private String unresolved(Request request, List<String> misses) {
    StringBuilder m =
        new StringBuilder("smslice: no pod on node ")
            .append(nodeName)
            .append(" is waiting for ")
            .append(request.deviceIds().size())
            .append(' ')
            .append(request.resource())
            .append(" with a SliceClaim bound to this node in ")
            .append(request.mode())
            .append(" mode");
    if (!misses.isEmpty()) {
      m.append(" (").append(String.join("; ", misses.stream().distinct().toList())).append(')');
    }
    return m.append(". Check that the pod's ")
        .append(SmsliceApi.CLAIM_ANNOTATION)
        .append(" annotation names a SliceClaim in its namespace that is Bound to ")
        .append(nodeName)
        .append(" (kubectl get sliceclaims -n <namespace>).")
        .toString();
  }

  private void sleep() throws AllocationException {
    try {
      Thread.sleep(pollEvery);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AllocationException("smslice: interrupted while looking for the pod");
    }
  }
}
