package io.smslice.operator.claim;

import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.operator.config.OperatorConfig;
import io.smslice.operator.inventory.InventoryReader;
import io.smslice.operator.placement.Decision;
import io.smslice.operator.placement.GpuUsage;
import io.smslice.operator.placement.NodeInventory;
import io.smslice.operator.placement.Placement;
import io.smslice.operator.placement.PlacementEngine;
import io.smslice.operator.placement.Request;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place where slices are allocated. Every call is serialised (synchronized), so two claims
 * are never placed at once. The state is rebuilt from the claims' recorded bindings before the
 * first decision, and the engine records a slice before its binding is written: the API never shows
 * a binding the engine does not hold, so a restart cannot double-allocate.
 */
@ApplicationScoped
public class SliceAllocator {
  private final OperatorConfig config;
  private final Clock clock;
  private ClusterView view;
  private PlacementEngine engine;
  private long version;

  /** Claims that lost their slice (node lost, GPU unhealthy, displaced, conflict), with why. */
  private final Map<String, String> lostSlices = new HashMap<>();

  @Inject
  public SliceAllocator(OperatorConfig config) {
    this(config, Clock.systemUTC());
  }

  public SliceAllocator(OperatorConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  /** Starts a new term from the API's state (a new leader, or a restarted operator). */
  public synchronized void attach(ClusterView view) {
    this.view = view;
    this.engine = null;
    lostSlices.clear();
  }

  public synchronized Outcome decide(SliceClaim claim) {
    load();
    refreshInventory();
    String key = ClaimRequests.key(claim);
    Request request = ClaimRequests.from(claim);
    var current = engine.placementOf(key);
    if (current.isPresent()) {
      return keepOrResize(request, current.get());
    }
    Decision decision = engine.place(request);
    String lostBecause = lostSlices.get(key);
    if (decision instanceof Decision.Unplaced u) {
      Phase phase = u.permanent() ? Phase.Failed : Phase.Pending;
      String message =
          lostBecause == null
              ? u.message()
              : "lost its slice (" + lostBecause + "); " + u.message();
      return Outcome.unplaced(phase, u.reason(), message);
    }
    Decision.Placed placed = (Decision.Placed) decision;
    for (String victim : placed.displaced()) {
      engine.release(victim);
      lostSlices.put(victim, "displaced by LatencyCritical claim " + key);
      view.trigger(victim);
    }
    commit(key, request, placed.placement());
    lostSlices.remove(key);
    version++;
    Binding old = claim.getStatus() == null ? null : claim.getStatus().getBinding();
    String where = describe(placed.placement());
    return old == null
        ? Outcome.bound(placed.placement(), "Placed", where)
        : Outcome.bound(
            placed.placement(),
            "Replaced",
            where
                + "; it was on "
                + old.getNode()
                + " GPU "
                + old.getGpuUuid()
                + " ("
                + (lostBecause == null ? "slice lost" : lostBecause)
                + ")");
  }

  /** Frees the claim's slice and lets waiting claims try again. */
  public synchronized void release(SliceClaim claim) {
    load();
    String key = ClaimRequests.key(claim);
    if (engine.placementOf(key).isPresent()) {
      engine.release(key);
      version++;
      retryWaiting(key);
    }
    lostSlices.remove(key);
  }

  /** Re-reads the inventory after a SliceNode or Node changed. */
  public synchronized void inventoryChanged() {
    if (engine != null) {
      refreshInventory();
    }
  }

  /**
   * Re-reads the inventory (nodes whose heartbeat went stale are dropped here) and frees slices of
   * claims that vanished without their finalizer running (for example a finalizer removed by hand).
   */
  public synchronized void checkLiveness() {
    if (engine == null) {
      return;
    }
    refreshInventory();
    java.util.Set<String> existing =
        view.claims().map(ClaimRequests::key).collect(java.util.stream.Collectors.toSet());
    boolean freed = false;
    for (String key : engine.claims()) {
      if (!existing.contains(key)) {
        engine.release(key);
        freed = true;
      }
    }
    if (freed) {
      version++;
      retryWaiting(null);
    }
  }

  public synchronized List<GpuUsage> usage() {
    return engine == null ? List.of() : engine.usage();
  }

  /** Grows with every change of allocations or inventory; lets metrics skip idle refreshes. */
  public synchronized long version() {
    return version;
  }

  private Outcome keepOrResize(Request request, Placement current) {
    Decision d = engine.resize(request);
    boolean grow = request.sms() > current.sms();
    boolean memoryChanged =
        current.mode() != io.smslice.operator.placement.Mode.MIG
            && request.memoryBytes() != current.memoryBytes();
    if (d instanceof Decision.Placed p) {
      Placement next = p.placement();
      boolean shrink = next.sms() < current.sms();
      if (!next.equals(current) && (grow || shrink || memoryChanged)) {
        engine.release(request.claim());
        commit(request.claim(), request, next);
        version++;
        if (shrink) {
          retryWaiting(request.claim());
        }
        return new Outcome(Phase.Bound, next, "Resized", describe(next), current, null);
      }
      return Outcome.bound(current, "Placed", describe(current));
    }
    Decision.Unplaced u = (Decision.Unplaced) d;
    if (grow || memoryChanged || u.reason().equals("ResizeNotPossible")) {
      return new Outcome(
          Phase.Bound,
          current,
          "Placed",
          describe(current),
          null,
          new Outcome.Resize(u.reason(), u.message()));
    }
    return Outcome.bound(current, "Placed", describe(current));
  }

  private void commit(String key, Request request, Placement placement) {
    engine
        .commit(key, request.priority(), placement)
        .ifPresent(
            why -> {
              throw new IllegalStateException("engine refused its own placement: " + why);
            });
  }

  private void load() {
    if (view == null) {
      throw new IllegalStateException("the allocator has no cluster view yet");
    }
    if (engine != null) {
      return;
    }
    engine = new PlacementEngine(readInventory());
    List<SliceClaim> bound =
        view.claims()
            .filter(c -> c.getStatus() != null && c.getStatus().getBinding() != null)
            .filter(
                c ->
                    c.getStatus().getPhase() == Phase.Bound
                        || c.getStatus().getPhase() == Phase.Resizing)
            .sorted(
                Comparator.comparing((SliceClaim c) -> ClaimRequests.from(c).priority())
                    .thenComparing(c -> String.valueOf(c.getMetadata().getCreationTimestamp()))
                    .thenComparing(ClaimRequests::key))
            .toList();
    for (SliceClaim c : bound) {
      Request r = ClaimRequests.from(c);
      Binding b = c.getStatus().getBinding();
      int percent = engine.mpsPercent(b.getGpuUuid(), b.getSms() == null ? 0 : b.getSms());
      Placement p = Bindings.toPlacement(b, percent, r.memoryBytes());
      engine.commit(r.claim(), r.priority(), p).ifPresent(why -> lostSlices.put(r.claim(), why));
    }
    version++;
  }

  private void refreshInventory() {
    List<NodeInventory> now = readInventory();
    if (now.equals(engine.nodes())) {
      return;
    }
    engine = engine.withInventory(now);
    version++;
    engine.lost().forEach(lostSlices::put);
    engine.lost().keySet().forEach(view::trigger);
    retryWaiting(null);
  }

  private List<NodeInventory> readInventory() {
    return InventoryReader.read(
        view.sliceNodes(), view.nodeLabels(), clock.instant(), config.heartbeatTimeout());
  }

  /** Claims without a slice get another chance when capacity or inventory changed. */
  private void retryWaiting(String except) {
    view.claims()
        .filter(c -> c.getStatus() == null || c.getStatus().getBinding() == null)
        .filter(c -> c.getMetadata().getDeletionTimestamp() == null)
        .map(ClaimRequests::key)
        .filter(k -> !k.equals(except))
        .forEach(view::trigger);
  }

  static String describe(Placement p) {
    return switch (p.mode()) {
      case GREEN ->
          p.sms()
              + " SMs (groups "
              + p.groups()
              + ") of GPU "
              + p.gpuUuid()
              + " on node "
              + p.node();
      case MIG ->
          "MIG instance "
              + p.migProfile()
              + " "
              + p.migUuid()
              + " of GPU "
              + p.gpuUuid()
              + " on node "
              + p.node();
      case MPS -> p.mpsPercent() + "% MPS share of GPU " + p.gpuUuid() + " on node " + p.node();
      case OFF -> "nothing";
    };
  }
}
