package io.smslice.node.events;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells a best-effort claim's users that the interference guard's cap cut in
 * (docs/interference-guard.md): a Warning event (reason {@value #REASON}) on the claim and on its
 * pods on this node when the cap has ended more of its holds, at most one per claim per interval.
 * The message counts the cuts since the claim's last event; smslice_guard_cap_cuts_total has every
 * one.
 */
public final class GuardCapCutEvents {
  private static final Logger LOG = Logger.getLogger(GuardCapCutEvents.class.getName());
  public static final String REASON = "GuardCapCut";
  public static final Duration INTERVAL = Duration.ofMinutes(1);

  /** The cuts a claim's last event covered, and when it was recorded (null: none yet). */
  private record Told(long cuts, Instant at) {}

  private final WarningEvents events;
  private final ClaimTargets targets;
  private final Supplier<Map<String, Long>> capCuts;
  private final Clock clock;
  private final Duration interval;
  private final Map<String, Told> told = new HashMap<>();

  public GuardCapCutEvents(
      KubernetesClient client,
      String nodeName,
      ClaimTargets targets,
      Supplier<Map<String, Long>> capCuts,
      Clock clock,
      Duration interval) {
    this.events = new WarningEvents(client, nodeName);
    this.targets = targets;
    this.capCuts = capCuts;
    this.clock = clock;
    this.interval = interval;
  }

  /** Compares each claim's cap cuts with what its last event said; run now and then. */
  public synchronized void check() {
    try {
      Instant now = clock.instant();
      Map<String, Long> counts = capCuts.get();
      told.keySet().retainAll(counts.keySet());
      counts.forEach(
          (claim, cuts) -> {
            Told last = told.getOrDefault(claim, new Told(0, null));
            if (cuts < last.cuts()) {
              // Its processes' slots were taken over by others: their counts start again.
              told.put(claim, new Told(cuts, last.at()));
            } else if (cuts > last.cuts()
                && (last.at() == null || !now.isBefore(last.at().plus(interval)))) {
              tell(claim, cuts - last.cuts(), last.at(), now);
              told.put(claim, new Told(cuts, now));
            }
          });
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "reading the guard's cap cuts failed", e);
    }
  }

  private void tell(String claim, long cuts, Instant since, Instant now) {
    int slash = claim.indexOf('/');
    if (slash <= 0) {
      return;
    }
    String ns = claim.substring(0, slash);
    String name = claim.substring(slash + 1);
    String message =
        "The interference guard held "
            + cuts
            + " launch"
            + (cuts == 1 ? "" : "es")
            + (since == null
                ? ""
                : " since "
                    + DateTimeFormatter.ISO_INSTANT.format(since.truncatedTo(ChronoUnit.SECONDS)))
            + " of this best-effort claim until its cap ended the hold"
            + " (node "
            + events.nodeName()
            + "): latency-critical work on its GPU kept it waiting for the longest hold"
            + " (transparent.guard.maxHoldMillis) or for its share of a window"
            + " (transparent.guard.sharePercent), so it was slowed by up to that share and then ran"
            + " beside that work unguarded.";
    targets.of(ns, name).forEach((what, ref) -> events.warn(what, ref, REASON, message, now));
  }
}
