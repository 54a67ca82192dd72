package io.smslice.node.dra.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smslice.node.dra.DraGpu;
import io.smslice.node.dra.cdi.CdiSpecFiles;
import io.smslice.node.dra.claims.AllocatedClaim;
import io.smslice.node.dra.claims.PrepareException;
import io.smslice.node.dra.claims.ResourceClaimApi;
import io.smslice.node.dra.claims.ResourceClaimReader;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.metrics.NodeMetrics;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * NodePrepareResources and NodeUnprepareResources for one claim: read the ResourceClaim, pick its
 * SM groups, have the agent serve it, write its CDI spec and the checkpoint, record the device on
 * the claim's status. Work on one claim holds only that claim's lock (by uid), so a slow claim
 * never holds up another; a repeated prepare answers from the checkpoint.
 */
public final class ClaimPreparer {
  private static final Logger LOG = Logger.getLogger(ClaimPreparer.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RESTORE_AT_ONCE_MAX = 8;

  private final ResourceClaimApi claims;
  private final ResourceClaimReader reader;
  private final List<DraGpu> gpus;
  private final Function<String, GpuCondition> health;
  private final SliceAgent agent;
  private final GroupAllocator allocator;
  private final Checkpoint checkpoint;
  private final CdiSpecFiles cdi;
  private final ClaimHandout handout;
  private final NodeMetrics metrics;
  private final Map<String, Object> locks = new ConcurrentHashMap<>();

  public ClaimPreparer(
      ResourceClaimApi claims,
      ResourceClaimReader reader,
      List<DraGpu> gpus,
      Function<String, GpuCondition> health,
      SliceAgent agent,
      Checkpoint checkpoint,
      CdiSpecFiles cdi,
      ClaimHandout handout,
      NodeMetrics metrics) {
    this.claims = claims;
    this.reader = reader;
    this.gpus = List.copyOf(gpus);
    this.health = health;
    this.agent = agent;
    this.allocator = new GroupAllocator(agent::claimStatuses);
    this.checkpoint = checkpoint;
    this.cdi = cdi;
    this.handout = handout;
    this.metrics = metrics;
  }

  /**
   * Serves every checkpointed claim again (at start, before the kubelet can call). Their tenants
   * wait meanwhile, and a claim's start can take a worker process's start: a few at once, as many
   * as the node side has cores (at least 2, at most {@link #RESTORE_AT_ONCE_MAX}).
   */
  public void restore() {
    List<PreparedClaim> all = checkpoint.all();
    if (all.isEmpty()) {
      return;
    }
    long start = System.nanoTime();
    all.forEach(allocator::restore);
    int atOnce = Math.clamp(Runtime.getRuntime().availableProcessors(), 2, RESTORE_AT_ONCE_MAX);
    try (ExecutorService pool =
        Executors.newFixedThreadPool(
            atOnce, Thread.ofPlatform().name("dra-restore-", 0).daemon().factory())) {
      for (PreparedClaim p : all) {
        pool.execute(() -> serveAgain(p));
      }
    }
    LOG.info(
        all.size()
            + " checkpointed DRA claims served again in "
            + (System.nanoTime() - start) / 1_000_000
            + " ms");
  }

  private void serveAgain(PreparedClaim p) {
    try {
      agent.serve(p.binding());
      LOG.info("DRA claim " + p.key() + " (" + p.uid() + ") served again on groups " + p.groups());
    } catch (Exception e) {
      // Kept in the checkpoint: its groups stay held, and the next prepare serves it again.
      LOG.log(Level.SEVERE, "cannot serve checkpointed DRA claim " + p.key() + " again", e);
    }
  }

  public List<PreparedClaim> prepared() {
    return checkpoint.all();
  }

  public PreparedClaim prepare(String namespace, String name, String uid) throws PrepareException {
    synchronized (lockOf(uid)) {
      try {
        Optional<PreparedClaim> done = checkpoint.get(uid);
        if (done.isPresent()) {
          PreparedClaim p = again(done.get());
          metrics.draPrepare("repeated");
          return p;
        }
        PreparedClaim p = prepareNew(namespace, name, uid);
        metrics.draPrepare("prepared");
        return p;
      } catch (PrepareException e) {
        metrics.draPrepare("error");
        LOG.warning(e.getMessage());
        claims.warn(namespace, name, uid, "PrepareFailed", e.getMessage());
        throw e;
      }
    }
  }

  private Object lockOf(String uid) {
    return locks.computeIfAbsent(uid, u -> new Object());
  }

  /** A prepared claim asked for again: still served, still with its CDI file. */
  private PreparedClaim again(PreparedClaim p) throws PrepareException {
    DraGpu gpu = gpu(p.namespace(), p.name(), p.device());
    if (agent.endpoint(p.namespace(), p.name()).isEmpty()) {
      serve(p);
    }
    if (!java.nio.file.Files.exists(cdi.file(p.uid()))) {
      writeCdi(p, gpu);
    }
    // A node side stopped between the checkpoint and the status write left the status out.
    ResourceClaimApi.DeviceStatus status = deviceStatus(p);
    try {
      if (!claims.hasDevice(p.namespace(), p.name(), p.uid(), status)) {
        recordStatus(p, status);
      }
    } catch (KubernetesClientException e) {
      LOG.log(Level.WARNING, "cannot read DRA claim " + p.key() + " to check its status", e);
    }
    return p;
  }

  private PreparedClaim prepareNew(String namespace, String name, String uid)
      throws PrepareException {
    long start = System.nanoTime();
    JsonNode json;
    try {
      json =
          claims
              .get(namespace, name)
              .orElseThrow(() -> PrepareException.of(namespace, name, "does not exist"));
    } catch (KubernetesClientException e) {
      throw PrepareException.of(namespace, name, "cannot be read: " + e.getMessage());
    }
    AllocatedClaim claim = reader.read(json, namespace, name, uid);
    Optional<PreparedClaim> sameName = checkpoint.byKey(claim.key());
    if (sameName.isPresent()) {
      throw PrepareException.of(
          namespace,
          name,
          "cannot be prepared while an earlier claim of that name (uid "
              + sameName.get().uid()
              + ") is still prepared on this node; it is unprepared once its pods ended");
    }
    DraGpu gpu = gpu(namespace, name, claim.device());
    GpuCondition condition = health.apply(gpu.uuid());
    if (!condition.healthy()) {
      throw PrepareException.of(
          namespace,
          name,
          "is allocated on GPU "
              + gpu.deviceName()
              + ", which is unhealthy: "
              + condition.reason());
    }
    if (claim.sms() <= 0 || claim.sms() % gpu.groupSize() != 0 || claim.sms() > gpu.smCount()) {
      throw PrepareException.of(
          namespace,
          name,
          "asks for "
              + claim.sms()
              + " SMs: on "
              + gpu.deviceName()
              + " a claim takes a multiple of "
              + gpu.groupSize()
              + " SMs, at most "
              + gpu.smCount());
    }
    if (claim.memoryBytes() > gpu.memoryBytes()) {
      throw PrepareException.of(
          namespace,
          name,
          "asks for " + claim.memoryBytes() + " bytes of memory; the GPU has " + gpu.memoryBytes());
    }
    int count = (int) (claim.sms() / gpu.groupSize());
    List<Integer> groups =
        allocator
            .hold(uid, claim.key(), gpu, count)
            .orElseThrow(
                () ->
                    PrepareException.of(
                        namespace,
                        name,
                        "needs "
                            + count
                            + " free SM groups on "
                            + gpu.deviceName()
                            + ", which has "
                            + allocator.freeGroups(gpu)
                            + " (the scheduler and the node disagree on what is in use: the"
                            + " kubelet retries)"));
    boolean transparent = claim.config().transparent().orElse(handout.transparentByDefault());
    PreparedClaim p =
        new PreparedClaim(
            uid,
            namespace,
            name,
            claim.request(),
            claim.pool(),
            claim.device(),
            claim.shareId(),
            gpu.uuid(),
            groups,
            claim.sms(),
            claim.memoryBytes(),
            claim.config().priority(),
            transparent);
    boolean served = false;
    try {
      serve(p);
      served = true;
      writeCdi(p, gpu);
      checkpoint.put(p);
    } catch (PrepareException | IOException | RuntimeException e) {
      undo(p, served);
      if (e instanceof PrepareException pe) {
        throw pe;
      }
      throw PrepareException.of(namespace, name, "cannot be prepared: " + e.getMessage());
    }
    LOG.info(
        "DRA claim "
            + p.key()
            + " ("
            + uid
            + ") prepared on "
            + gpu.uuid()
            + " groups "
            + groups
            + " in "
            + (System.nanoTime() - start) / 1_000_000
            + " ms");
    recordStatus(p, deviceStatus(p));
    return p;
  }

  private void undo(PreparedClaim p, boolean served) {
    if (served) {
      agent.release(p.namespace(), p.name());
      agent.forgetTokens(p.namespace(), p.name());
    }
    try {
      cdi.remove(p.uid());
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot remove the CDI spec of " + p.key(), e);
    }
    allocator.free(p.uid());
  }

  private void serve(PreparedClaim p) throws PrepareException {
    try {
      agent.serve(p.binding());
    } catch (Exception e) {
      throw PrepareException.of(
          p.namespace(),
          p.name(),
          "cannot be served by the node agent on GPU "
              + p.gpuUuid()
              + " groups "
              + p.groups()
              + ": "
              + e.getMessage());
    }
  }

  private void writeCdi(PreparedClaim p, DraGpu gpu) throws PrepareException {
    try {
      cdi.write(p.uid(), handout.edits(p, gpu));
    } catch (IOException e) {
      throw PrepareException.of(
          p.namespace(), p.name(), "cannot write its CDI spec: " + e.getMessage());
    }
  }

  /**
   * Records the device on the claim's status (the operator and users read the groups there). The
   * claim is prepared either way: a failure is logged, counted and put on the claim as an Event.
   */
  private void recordStatus(PreparedClaim p, ResourceClaimApi.DeviceStatus status) {
    try {
      claims.recordDevice(p.namespace(), p.name(), p.uid(), status);
      metrics.draClaimStatusWrite("ok");
    } catch (KubernetesClientException e) {
      metrics.draClaimStatusWrite("error");
      LOG.log(Level.WARNING, "cannot record DRA claim " + p.key() + " in its status.devices", e);
      claims.warn(
          p.namespace(),
          p.name(),
          p.uid(),
          "StatusNotRecorded",
          "smslice: claim "
              + p.key()
              + " is prepared, but its status.devices could not be written: "
              + e.getMessage());
    }
  }

  private static ResourceClaimApi.DeviceStatus deviceStatus(PreparedClaim p) {
    ObjectNode data = JSON.createObjectNode();
    data.put("gpuUuid", p.gpuUuid());
    data.putPOJO("smGroups", p.groups());
    data.put("sms", p.sms());
    data.put("memoryBytes", p.memoryBytes());
    return new ResourceClaimApi.DeviceStatus(
        p.pool(),
        p.device(),
        p.shareId(),
        p.sms() + " SMs on groups " + p.groups() + " of " + p.gpuUuid(),
        data);
  }

  /** Undoes a prepare; a uid this node never prepared (or already unprepared) is done. */
  public void unprepare(String namespace, String name, String uid) throws PrepareException {
    synchronized (lockOf(uid)) {
      Optional<PreparedClaim> done = checkpoint.get(uid);
      if (done.isEmpty()) {
        metrics.draUnprepare("unknown");
        return;
      }
      PreparedClaim p = done.get();
      agent.release(p.namespace(), p.name());
      agent.forgetTokens(p.namespace(), p.name());
      try {
        cdi.remove(uid);
        checkpoint.remove(uid);
      } catch (IOException e) {
        metrics.draUnprepare("error");
        throw PrepareException.of(namespace, name, "cannot be unprepared: " + e.getMessage());
      }
      allocator.free(uid);
      metrics.draUnprepare("unprepared");
      LOG.info("DRA claim " + p.key() + " (" + uid + ") unprepared");
    }
  }

  private DraGpu gpu(String namespace, String name, String device) throws PrepareException {
    return gpus.stream()
        .filter(g -> g.deviceName().equals(device))
        .findFirst()
        .orElseThrow(
            () ->
                PrepareException.of(
                    namespace,
                    name,
                    "is allocated device "
                        + device
                        + ", which is not a green-mode GPU of this node (its devices are "
                        + gpus.stream().map(DraGpu::deviceName).toList()
                        + ")"));
  }
}
