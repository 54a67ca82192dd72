package io.smslice.examples.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VoteTallyTest {
  private static final long DEADLINE = 10_000;
  private final VoteTally tally = new VoteTally(List.of("a", "b", "c"), DEADLINE);
  private final LatencyStats stats = new LatencyStats();

  VoteTallyTest() {
    stats.deadline(DEADLINE);
  }

  @Test
  void aFrameIsAnsweredWhenTheSecondAgreeingModelAnswers() {
    tally.add(new Ballot("a", 1, 42, 3_000));
    tally.add(new Ballot("b", 1, 42, 7_000));
    tally.add(new Ballot("c", 1, 42, 5_000));
    tally.closeBefore(2, stats);

    assertThat(tally.decided()).isEqualTo(1);
    assertThat(stats.snapshot().deadlineMisses()).isZero();
    assertThat(stats.snapshot().p50()).isEqualTo(5_000);
  }

  @Test
  void oneLateModelIsCountedButTheOtherTwoStillAnswer() {
    tally.add(new Ballot("a", 1, 42, 3_000));
    tally.add(new Ballot("b", 1, 42, 4_000));
    tally.add(new Ballot("c", 1, 42, 50_000));
    tally.closeBefore(2, stats);

    assertThat(tally.missesOf("c")).isEqualTo(1);
    assertThat(tally.missesOf("a")).isZero();
    assertThat(tally.late() + tally.disagreements()).isZero();
  }

  @Test
  void twoDifferentAnswersInTimeAreADisagreementAndAMiss() {
    tally.add(new Ballot("a", 1, 42, 3_000));
    tally.add(new Ballot("b", 1, 43, 4_000));
    tally.add(new Ballot("c", 1, 42, 50_000));
    tally.closeBefore(2, stats);

    assertThat(tally.disagreements()).isEqualTo(1);
    assertThat(stats.snapshot().deadlineMisses()).isEqualTo(1);
  }

  @Test
  void framesBeforeEveryModelFirstAnsweredAreStartUp() {
    tally.add(new Ballot("a", 1, 42, 3_000));
    tally.add(new Ballot("a", 2, 42, 3_000));
    tally.add(new Ballot("b", 2, 42, 3_000));
    tally.add(new Ballot("c", 2, 42, 3_000));
    tally.add(new Ballot("a", 3, 42, 3_000));
    tally.closeBefore(4, stats);

    assertThat(tally.decided()).as("frames 2 and 3").isEqualTo(2);
    assertThat(tally.late()).as("frame 3: only a answered").isEqualTo(1);
    assertThat(tally.missesOf("b")).isEqualTo(1);
  }

  @Test
  void aBallotForAClosedFrameIsDropped() {
    for (String m : List.of("a", "b", "c")) {
      tally.add(new Ballot(m, 1, 42, 3_000));
    }
    tally.closeBefore(2, stats);
    tally.add(new Ballot("a", 1, 42, 3_000));
    tally.closeBefore(3, stats);

    assertThat(tally.decided()).isEqualTo(1);
  }

  @Test
  void ballotsSurviveTheirWireFormat() {
    Ballot ballot = new Ballot("b", 123456789L, -5, 4_321);
    assertThat(Ballot.decode(ballot.encode())).isEqualTo(ballot);
  }
}
