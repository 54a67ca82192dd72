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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds the container an Allocate is for. The kubelet passes only device ids, so the container is
 * inferred: a pod scheduled to this node, not running yet, annotated with a claim that is bound to
 * this node in the resource's mode, with a container that asks for exactly as many devices of this
 * resource as were allocated, and that was not allocated before (see {@link AllocationLedger}). A
 * MIG claim also needs the kubelet's device to be its own MIG device: the container gets exactly
 * the device the kubelet recorded, or nothing.
 *
 * <p>When several containers fit, the order is: a pod whose other containers were just allocated
 * (the kubelet admits one pod at a time, container by container), a claim on the GPU the devices
 * are on, then the oldest pod (the kubelet admits pods in creation order), and among pods created
 * in the same second (the timestamp's resolution) the first by namespace and name. The guess is
 * only as good as that order: a kubelet that admits two such pods of one GPU, asking for the same
 * count, the other way round gives each the other's claim (docs/node.md: a known limit while the
 * kubelet's Allocate names no pod).
 *
 * <p>Looking (the API reads, and waiting for a pod the API server does not show yet) holds no lock,
 * so Allocates of different pods proceed at once. Only choosing is serialised: a chosen container
 * is held for its Allocate until its answer is committed to the ledger or released, and no other
 * Allocate may choose it meanwhile.
 */
public final class AllocationResolver {
  // A SliceClaim name, as metadata.name of any object: a DNS-1123 subdomain.
  private static final Pattern CLAIM_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final int CLAIM_NAME_MAX = 253;

  private final String nodeName;
  private final ClusterView cluster;
  private final AllocationLedger ledger;
  private final Duration waitForPod;
  private final Duration pollEvery;
  private final Object choosing = new Object();
  // Guarded by choosing: containers held by Allocates in progress, and the number of commits.
  private final Set<String> held = new HashSet<>();
  private long commits;

  /** What one container was given. */
  public record Request(String resource, GpuMode mode, List<String> deviceIds, Set<String> gpus) {}

  private record Candidate(Resolution resolution, String resource, boolean onGpu) {
    String key() {
      return resolution.podUid() + "/" + resolution.container() + "/" + resource;
    }
  }

  /** One look at the node's pods: who could take the devices, why the others cannot. */
  private record Scan(List<Candidate> found, List<String> misses, Set<String> podUids, long at) {}

  /** A container chosen for one Allocate: no other Allocate gets it until it is released. */
  public final class Hold implements AutoCloseable {
    private final Request request;
    private final Candidate chosen;
    private boolean open = true;

    private Hold(Request request, Candidate chosen) {
      this.request = request;
      this.chosen = chosen;
    }

    public Resolution resolution() {
      return chosen.resolution();
    }

    /** Gives the container back unless it was committed; for try-with-resources. */
    @Override
    public void close() {
      synchronized (choosing) {
        if (open) {
          open = false;
          held.remove(chosen.key());
        }
      }
    }
  }

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

  /** Chooses and holds the container for {@code request}, looking until the pod shows up. */
  public Hold hold(Request request) throws AllocationException {
    Instant deadline = Instant.now().plus(waitForPod);
    while (true) {
      Scan scan = scan(request.resource(), request.mode(), request.deviceIds(), request.gpus());
      Optional<Hold> hold = choose(request, scan);
      if (hold.isPresent()) {
        return hold.get();
      }
      if (!Instant.now().isBefore(deadline)) {
        throw new AllocationException(unresolved(request, scan.misses()));
      }
      sleep();
    }
  }

  /**
   * Records the held containers as allocated, all or none (the ledger file is written once), and
   * releases the holds.
   */
  public void commit(List<Hold> holds) {
    synchronized (choosing) {
      List<AllocationLedger.Entry> entries = new ArrayList<>();
      for (Hold h : holds) {
        if (!h.open) {
          throw new IllegalStateException("container " + h.resolution() + " is no longer held");
        }
        Resolution r = h.resolution();
        entries.add(
            new AllocationLedger.Entry(
                r.podUid(),
                r.namespace(),
                r.pod().getMetadata().getName(),
                r.container(),
                h.request.resource(),
                r.claimName(),
                h.request.deviceIds()));
      }
      ledger.recordAll(entries);
      commits++;
      for (Hold h : holds) {
        h.open = false;
        held.remove(h.chosen.key());
      }
    }
  }

  /**
   * The container the next Allocate of {@code count} devices would most likely be for. Never fails:
   * it only informs a preference.
   */
  public Optional<Resolution> next(String resource, GpuMode mode, int count) {
    if (count < 0) {
      return Optional.empty();
    }
    Scan scan = scan(resource, mode, java.util.Collections.nCopies(count, ""), Set.of());
    synchronized (choosing) {
      return ordered(scan.found()).findFirst().map(Candidate::resolution);
    }
  }

  private Optional<Hold> choose(Request request, Scan scan) {
    synchronized (choosing) {
      // Forget pods that left the node, unless an Allocate committed since the list was read:
      // its pod may be newer than the list.
      if (scan.at() == commits && scan.podUids() != null) {
        ledger.retain(scan.podUids());
      }
      Optional<Candidate> best = ordered(scan.found()).findFirst();
      best.ifPresent(c -> held.add(c.key()));
      return best.map(c -> new Hold(request, c));
    }
  }

  /** Candidates not allocated or held, best first; called while choosing. */
  private Stream<Candidate> ordered(List<Candidate> found) {
    return found.stream()
        .filter(c -> !held.contains(c.key()) && !allocated(c))
        .sorted(
            Comparator.comparing((Candidate c) -> !ledger.started(c.resolution().podUid()))
                .thenComparing(c -> !c.onGpu())
                .thenComparing(c -> created(c.resolution().pod()))
                .thenComparing(c -> name(c.resolution().pod()))
                .thenComparing(c -> c.resolution().container()));
  }

  private boolean allocated(Candidate c) {
    Resolution r = c.resolution();
    return ledger.allocated(r.podUid(), r.container(), c.resource());
  }

  /**
   * Reads the pods and their claims. Runs without the lock; a failed read of one pod's claim is a
   * miss for that pod only.
   *
   * @param deviceIds the kubelet's devices, or blanks when only their number is known
   */
  private Scan scan(String resource, GpuMode mode, List<String> deviceIds, Set<String> gpus) {
    long at;
    synchronized (choosing) {
      at = commits;
    }
    List<String> misses = new ArrayList<>();
    List<Pod> pods;
    try {
      pods = cluster.podsOnNode(nodeName);
    } catch (RuntimeException e) {
      misses.add("the pods on the node could not be listed: " + e.getMessage());
      return new Scan(List.of(), misses, null, at);
    }
    Map<String, Optional<SliceClaim>> claims = new HashMap<>();
    List<Candidate> found = new ArrayList<>();
    for (Pod pod : pods) {
      String who = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      try {
        candidates(pod, who, resource, mode, deviceIds, gpus, claims, found, misses);
      } catch (RuntimeException e) {
        misses.add(who + " could not be read: " + e.getMessage());
      }
    }
    Set<String> uids = pods.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    return new Scan(found, misses, uids, at);
  }

  private void candidates(
      Pod pod,
      String who,
      String resource,
      GpuMode mode,
      List<String> deviceIds,
      Set<String> gpus,
      Map<String, Optional<SliceClaim>> claims,
      List<Candidate> found,
      List<String> misses) {
    if (pod.getMetadata().getDeletionTimestamp() != null || !pending(pod)) {
      return;
    }
    for (Container c : containers(pod)) {
      Integer asked = requested(c, resource);
      if (asked == null
          || ledger.allocated(pod.getMetadata().getUid(), c.getName(), resource)
          || started(pod, c.getName())) {
        continue;
      }
      if (asked != deviceIds.size()) {
        misses.add(who + " asks for " + asked);
        continue;
      }
      Optional<SliceClaim> claim = claimOf(pod, who, mode, deviceIds, claims, misses);
      claim.ifPresent(
          cl ->
              found.add(
                  new Candidate(
                      new Resolution(pod, c.getName(), cl),
                      resource,
                      gpus.contains(cl.getStatus().getBinding().getGpuUuid()))));
    }
  }

  /** The pod's claim when it can take the devices; otherwise a miss that says why not. */
  private Optional<SliceClaim> claimOf(
      Pod pod,
      String who,
      GpuMode mode,
      List<String> deviceIds,
      Map<String, Optional<SliceClaim>> claims,
      List<String> misses) {
    String annotation = annotation(pod);
    if (annotation == null) {
      misses.add(who + " has no " + SmsliceApi.CLAIM_ANNOTATION + " annotation");
      return Optional.empty();
    }
    // Trimmed as the operator reads it, so both sides mean the same claim.
    String claimName = annotation.trim();
    if (claimName.isEmpty()) {
      misses.add(who + " has an empty " + SmsliceApi.CLAIM_ANNOTATION + " annotation");
      return Optional.empty();
    }
    if (claimName.length() > CLAIM_NAME_MAX || !CLAIM_NAME.matcher(claimName).matches()) {
      misses.add(
          who
              + ": "
              + SmsliceApi.CLAIM_ANNOTATION
              + " annotation '"
              + annotation
              + "' is not a SliceClaim name (lower-case letters, digits, '-' and '.')");
      return Optional.empty();
    }
    String ns = pod.getMetadata().getNamespace();
    Optional<SliceClaim> claim;
    try {
      claim = claims.computeIfAbsent(ns + "/" + claimName, k -> cluster.claim(ns, claimName));
    } catch (RuntimeException e) {
      misses.add(who + ": claim " + claimName + " could not be read: " + e.getMessage());
      return Optional.empty();
    }
    Optional<String> why = claim.map(c -> unusable(c, mode, deviceIds));
    String problem = claim.isEmpty() ? "does not exist" : why.orElse(null);
    if (problem != null) {
      misses.add(who + ": claim " + claimName + " " + problem);
      return Optional.empty();
    }
    return claim;
  }

  /** Why the claim cannot take these devices, or null. */
  private String unusable(SliceClaim claim, GpuMode mode, List<String> deviceIds) {
    if (claim.getStatus() == null || claim.getStatus().getBinding() == null) {
      return "is not bound yet";
    }
    Binding b = claim.getStatus().getBinding();
    if (!nodeName.equals(b.getNode())) {
      return "is bound to node " + b.getNode() + ", not " + nodeName;
    }
    if (b.getMode() != mode) {
      return "is bound in " + b.getMode() + " mode, not " + mode;
    }
    boolean known = deviceIds.stream().noneMatch(String::isEmpty);
    if (mode == GpuMode.MIG && known && !deviceIds.equals(List.of(b.getMigDeviceUuid()))) {
      return "is bound to MIG device "
          + b.getMigDeviceUuid()
          + ", not "
          + String.join(", ", deviceIds)
          + " (the device the kubelet chose)";
    }
    return null;
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

  private static String name(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
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
