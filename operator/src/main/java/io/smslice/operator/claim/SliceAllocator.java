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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The one place where slices are allocated. Every call is serialised (synchronized), so two claims
 * are never placed at once by one operator. A slice is written to its node's ledger ({@link
 * NodeLedger}, a write conditional on what was read) before the engine holds it and before the
 * claim's status shows it, so another operator acting at the same time cannot take the same SMs:
 * the second writer's ledger write is refused, and it reads the cluster again. The engine is filled
 * from a fresh read of the API (ledgers, then claims), never from a cache, when a term starts and
 * after every such conflict. A slice whose claim status could not be written is given back ({@link
 * #undo}).
 */
@ApplicationScoped
public class SliceAllocator {
  private final OperatorConfig config;
  private final Clock clock;
  private ClusterView view;
  private NodeLedger ledger;
  private PlacementEngine engine;
  private long version;

  /** The node whose ledger holds each claim's entry. */
  private Map<String, String> ledgerNode = new HashMap<>();

  /** Slices decided but not yet shown in their claim's status: the placement before (or null). */
  private final Map<String, java.util.Optional<Placement>> unconfirmed = new HashMap<>();

  private static final int ATTEMPTS = 3;

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
  public synchronized void attach(ClusterView view, NodeLedger ledger) {
    this.view = view;
    this.ledger = ledger;
    this.engine = null;
    lostSlices.clear();
    unconfirmed.clear();
  }

  /**
   * Decides the claim's slice and records it in the ledger and the engine. The caller writes the
   * claim's status next and then calls {@link #confirmed} or {@link #undo}.
   */
  public synchronized Outcome decide(SliceClaim claim) {
    for (int attempt = 1; ; attempt++) {
      load();
      refreshInventory();
      try {
        return decideOnce(claim);
      } catch (LedgerConflict e) {
        engine = null;
        if (attempt == ATTEMPTS) {
          throw new IllegalStateException(
              "another writer kept changing the allocations (" + e.getMessage() + "); retrying");
        }
      }
    }
  }

  /** The claim's status now shows what {@link #decide} recorded. */
  public synchronized void confirmed(SliceClaim claim) {
    unconfirmed.remove(ClaimRequests.key(claim));
  }

  /**
   * The claim's status could not be written: gives back what {@link #decide} recorded (a new slice
   * is freed, a resize is reverted), so no slice is held that the API does not show.
   */
  public synchronized void undo(SliceClaim claim) {
    String key = ClaimRequests.key(claim);
    var before = unconfirmed.remove(key);
    if (before == null || engine == null) {
      return;
    }
    try {
      if (before.isEmpty()) {
        removeFromLedger(key);
        engine.release(key);
        retryWaiting(key);
      } else {
        record(key, ClaimRequests.from(claim), before.get(), List.of(), true);
      }
      version++;
    } catch (RuntimeException e) {
      engine = null; // the next decision reads the cluster again
    }
  }

  private Outcome decideOnce(SliceClaim claim) {
    String key = ClaimRequests.key(claim);
    Request request = ClaimRequests.from(claim);
    var current = engine.placementOf(key);
    if (current.isPresent()) {
      return keepOrResize(request, current.get());
    }
    if (LedgerLoad.boundBinding(claim) != null && !lostSlices.containsKey(key)) {
      throw new LedgerConflict(key + " was bound by another writer");
    }
    String badLabels = NodeLabelSyntax.invalid(request.nodeLabels());
    if (badLabels != null) {
      return Outcome.unplaced(Phase.Failed, "InvalidClaim", badLabels);
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
    record(key, request, placed.placement(), placed.displaced(), false);
    unconfirmed.put(key, java.util.Optional.empty());
    for (String victim : placed.displaced()) {
      lostSlices.put(victim, "displaced by LatencyCritical claim " + key);
      view.trigger(victim);
    }
    lostSlices.remove(key);
    version++;
    Binding old = claim.getStatus() == null ? null : claim.getStatus().getBinding();
    String where = describe(request, placed.placement());
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
    removeFromLedger(key);
    unconfirmed.remove(key);
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
    java.util.Set<String> cached =
        view.claims().map(ClaimRequests::key).collect(java.util.stream.Collectors.toSet());
    List<String> missing = engine.claims().stream().filter(k -> !cached.contains(k)).toList();
    if (missing.isEmpty()) {
      return;
    }
    // The cache may not show a claim created a moment ago: only the API's answer frees a slice.
    java.util.Set<String> existing =
        view.listClaims().stream()
            .map(ClaimRequests::key)
            .collect(java.util.stream.Collectors.toSet());
    boolean freed = false;
    for (String key : missing) {
      if (!existing.contains(key)) {
        removeFromLedger(key);
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
    int transparent =
        Served.of(view.sliceNodes(), current.node(), request.claim())
            .map(io.smslice.api.v1alpha1.node.ServedClaim::getTransparentProcesses)
            .orElse(0);
    if (transparent > 0 && current.mode() != io.smslice.operator.placement.Mode.MIG) {
      Decision asked = engine.resize(request);
      boolean changes =
          asked instanceof Decision.Placed p
              ? !p.placement().equals(current)
              : request.sms() != current.sms();
      if (changes) {
        // An unmodified program's streams cannot move to a new green context, and giving its
        // groups to another claim would overlap SMs: the size changes once it has gone.
        return new Outcome(
            Phase.Bound,
            current,
            "Placed",
            describe(request, current),
            null,
            new Outcome.Resize(
                "TransparentProcesses",
                transparent
                    + " unmodified processes run on the current SMs and cannot be moved live;"
                    + " restart the claim's pods (kubectl rollout restart, or scale to 0 and back)"
                    + " to apply the new size"));
      }
    }
    Decision d = engine.resize(request);
    boolean grow = request.sms() > current.sms();
    boolean memoryChanged =
        current.mode() != io.smslice.operator.placement.Mode.MIG
            && request.memoryBytes() != current.memoryBytes();
    if (d instanceof Decision.Placed p) {
      Placement next = p.placement();
      boolean shrink = next.sms() < current.sms();
      if (!next.equals(current) && (grow || shrink || memoryChanged)) {
        record(request.claim(), request, next, List.of(), true);
        unconfirmed.put(request.claim(), java.util.Optional.of(current));
        version++;
        if (shrink) {
          retryWaiting(request.claim());
        }
        return new Outcome(Phase.Bound, next, "Resized", describe(request, next), current, null);
      }
      return Outcome.bound(current, "Placed", describe(request, current));
    }
    Decision.Unplaced u = (Decision.Unplaced) d;
    if (grow || memoryChanged || u.reason().equals("ResizeNotPossible")) {
      return new Outcome(
          Phase.Bound,
          current,
          "Placed",
          describe(request, current),
          null,
          new Outcome.Resize(u.reason(), u.message()));
    }
    return Outcome.bound(current, "Placed", describe(request, current));
  }

  /**
   * Writes the claim's slice to its node's ledger, then holds it in the engine. The write is
   * refused when the ledger changed since it was read, and a ledger entry on the same GPU that the
   * engine does not know means another writer got there first: both are a {@link LedgerConflict}.
   */
  private void record(
      String key, Request request, Placement p, List<String> victims, boolean replacesOwn) {
    NodeLedger.Snapshot snap = ledger.read(p.node());
    Map<String, Binding> next = new java.util.LinkedHashMap<>(snap.bindings());
    for (var e : snap.bindings().entrySet()) {
      String other = e.getKey();
      if (other.equals(key) && !p.node().equals(ledgerNode.get(key))) {
        throw new LedgerConflict(key + " was placed on node " + p.node() + " by another writer");
      }
      if (other.equals(key) || victims.contains(other)) {
        continue;
      }
      boolean known =
          engine
              .placementOf(other)
              .map(mine -> LedgerLoad.same(Bindings.toBinding(mine), e.getValue()))
              .orElse(false);
      if (!known && p.gpuUuid().equals(e.getValue().getGpuUuid())) {
        throw new LedgerConflict(
            other + " holds a slice of GPU " + p.gpuUuid() + " this operator did not know of");
      }
    }
    victims.forEach(next::remove);
    next.put(key, Bindings.toBinding(p));
    if (!ledger.write(snap, next)) {
      throw new LedgerConflict("the allocations of node " + p.node() + " changed meanwhile");
    }
    String oldNode = ledgerNode.put(key, p.node());
    if (oldNode != null && !oldNode.equals(p.node())) {
      try {
        removeFrom(key, oldNode);
      } catch (RuntimeException e) {
        // The stale entry is dropped when the cluster is next read; it blocks nothing meanwhile.
      }
    }
    for (String victim : victims) {
      ledgerNode.remove(victim);
      engine.release(victim);
    }
    if (replacesOwn) {
      engine.release(key);
    }
    engine
        .commit(key, request.priority(), p)
        .ifPresent(
            why -> {
              throw new IllegalStateException("engine refused its own placement: " + why);
            });
  }

  private void removeFromLedger(String key) {
    String node = ledgerNode.remove(key);
    if (node != null) {
      removeFrom(key, node);
    }
  }

  private void removeFrom(String key, String node) {
    for (int attempt = 0; attempt < 5; attempt++) {
      NodeLedger.Snapshot snap = ledger.read(node);
      if (!snap.bindings().containsKey(key)) {
        return;
      }
      Map<String, Binding> next = new java.util.LinkedHashMap<>(snap.bindings());
      next.remove(key);
      if (ledger.write(snap, next)) {
        return;
      }
    }
    throw new IllegalStateException("could not remove " + key + " from the ledger of " + node);
  }

  private void load() {
    if (view == null) {
      throw new IllegalStateException("the allocator has no cluster view yet");
    }
    if (engine != null) {
      return;
    }
    engine = new PlacementEngine(readInventory());
    ledgerNode = LedgerLoad.load(engine, ledger, view.listClaims(), lostSlices);
    unconfirmed.clear();
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
        view.sliceNodes(), view.nodes(), clock.instant(), config.heartbeatTimeout());
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

  static String describe(Request r, Placement p) {
    String where = describe(p);
    // Said on every write of the status, so that it stays while the claim holds the slice.
    return r.memoryBound() && p.mode() != io.smslice.operator.placement.Mode.MIG
        ? where
            + "; the claim is memory-bound but no MIG instance had room: memory bandwidth and L2"
            + " are shared with this GPU's other tenants"
        : where;
  }

  private static String describe(Placement p) {
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
