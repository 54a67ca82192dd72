package io.smslice.operator.claim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.smslice.api.v1alpha1.Condition;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.operator.placement.Mode;
import io.smslice.operator.placement.Placement;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClaimStatusesTest {
  private static final Placement P16 =
      new Placement("n1", "GPU-1", Mode.GREEN, List.of(0, 1), 16, null, null, 0, 0);
  private static final Placement P32 =
      new Placement("n1", "GPU-1", Mode.GREEN, List.of(0, 1, 2, 3), 32, null, null, 0, 0);

  private static SliceClaim claim(long generation) {
    SliceClaim c = new SliceClaim();
    c.setMetadata(
        new ObjectMetaBuilder()
            .withName("c")
            .withNamespace("ns")
            .withGeneration(generation)
            .build());
    return c;
  }

  private static Condition placed(SliceClaim c) {
    return c.getStatus().getConditions().stream()
        .filter(x -> x.getType().equals("Placed"))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void keepsTransitionTimeWhileTheConditionHolds() {
    SliceClaim c = claim(1);
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    c.setStatus(
        ClaimStatuses.next(
            c,
            Outcome.unplaced(Phase.Pending, "InsufficientCapacity", "wait"),
            Optional.empty(),
            t0));
    assertThat(placed(c).getStatus()).isEqualTo("False");

    Instant t1 = t0.plusSeconds(10);
    c.setStatus(ClaimStatuses.next(c, Outcome.bound(P16, "Placed", "here"), Optional.empty(), t1));
    assertThat(placed(c).getLastTransitionTime()).isEqualTo(t1.toString());

    SliceClaim later = claim(2);
    later.setStatus(c.getStatus());
    var again =
        ClaimStatuses.next(
            later, Outcome.bound(P16, "Placed", "here"), Optional.empty(), t1.plusSeconds(60));
    assertThat(again.getConditions())
        .extracting(Condition::getType)
        .containsExactly("Placed", "Ready");
    assertThat(again.getConditions().getFirst().getLastTransitionTime()).isEqualTo(t1.toString());
    assertThat(again.getConditions().getFirst().getObservedGeneration()).isEqualTo(2L);
    assertThat(again.getObservedGeneration()).isEqualTo(2L);
    assertThat(
            ClaimStatuses.same(
                again,
                ClaimStatuses.next(
                    later,
                    Outcome.bound(P16, "Placed", "here"),
                    Optional.empty(),
                    t1.plusSeconds(99))))
        .isTrue();
  }

  @Test
  void resizeShowsResizingThenBoundWithResizedCondition() {
    SliceClaim c = claim(3);
    Outcome resized = new Outcome(Phase.Bound, P32, "Resized", "32", P16, null);
    var during = ClaimStatuses.resizing(c, resized, Optional.empty(), Instant.EPOCH);
    assertThat(during.getPhase()).isEqualTo(Phase.Resizing);
    assertThat(during.getBinding().getSms()).isEqualTo(16);
    var after = ClaimStatuses.next(c, resized, Optional.empty(), Instant.EPOCH);
    assertThat(after.getPhase()).isEqualTo(Phase.Bound);
    assertThat(after.getBinding().getSms()).isEqualTo(32);
    assertThat(after.getConditions())
        .anyMatch(x -> x.getType().equals("Resized") && x.getStatus().equals("True"));
  }

  private static ServedClaim served(boolean serving, String message) {
    ServedClaim s = new ServedClaim();
    s.setNamespace("ns");
    s.setName("c");
    s.setGpuUuid("GPU-1");
    s.setServing(serving);
    s.setMessage(message);
    return s;
  }

  private static Condition ready(SliceClaimStatus s) {
    return s.getConditions().stream()
        .filter(x -> x.getType().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  /** Issue 12.16: Bound is not Ready until the node serves the claim; a failure shows. */
  @Test
  void readyFollowsTheNodesServingAndKeepsItsTransitionTime() {
    SliceClaim c = claim(1);
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    Outcome bound = Outcome.bound(P16, "Placed", "here");
    c.setStatus(ClaimStatuses.next(c, bound, Optional.empty(), t0));
    assertThat(c.getStatus().getPhase()).isEqualTo(Phase.Bound);
    assertThat(ready(c.getStatus()).getStatus()).isEqualTo("False");
    assertThat(ready(c.getStatus()).getReason()).isEqualTo("WaitingForNode");

    Instant t1 = t0.plusSeconds(5);
    c.setStatus(ClaimStatuses.next(c, bound, Optional.of(served(true, null)), t1));
    assertThat(ready(c.getStatus()).getStatus()).isEqualTo("True");
    assertThat(ready(c.getStatus()).getLastTransitionTime()).isEqualTo(t1.toString());
    var unchanged =
        ClaimStatuses.next(c, bound, Optional.of(served(true, null)), t1.plusSeconds(9));
    assertThat(ClaimStatuses.same(unchanged, c.getStatus()))
        .as("no write when nothing changed")
        .isTrue();

    Instant t2 = t1.plusSeconds(5);
    c.setStatus(
        ClaimStatuses.next(c, bound, Optional.of(served(false, "green context failed: OOM")), t2));
    Condition r = ready(c.getStatus());
    assertThat(r.getStatus()).isEqualTo("False");
    assertThat(r.getReason()).isEqualTo("NodeCannotServe");
    assertThat(r.getMessage()).contains("green context failed: OOM");
    assertThat(r.getLastTransitionTime()).isEqualTo(t2.toString());
    assertThat(r.getObservedGeneration()).isEqualTo(1L);

    // Not serving decides, not whether the node wrote a message: a report without one is still
    // a failure, and a serving report may carry a note.
    Instant t3 = t2.plusSeconds(5);
    c.setStatus(ClaimStatuses.next(c, bound, Optional.of(served(false, null)), t3));
    assertThat(ready(c.getStatus()).getStatus()).isEqualTo("False");
    assertThat(ready(c.getStatus()).getReason()).isEqualTo("NodeCannotServe");
    c.setStatus(
        ClaimStatuses.next(
            c, bound, Optional.of(served(true, "2 MPS clients")), t3.plusSeconds(1)));
    assertThat(ready(c.getStatus()).getStatus()).isEqualTo("True");
    assertThat(ready(c.getStatus()).getReason()).isEqualTo("Serving");

    var pending = Outcome.unplaced(Phase.Pending, "InsufficientCapacity", "wait");
    assertThat(ready(ClaimStatuses.next(c, pending, Optional.empty(), t2)).getReason())
        .isEqualTo("InsufficientCapacity");
  }
}
