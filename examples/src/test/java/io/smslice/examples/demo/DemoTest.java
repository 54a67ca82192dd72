package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.examples.workload.LatencyStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the whole demo headless on the simulated GPU, with the operator's built fast-jar, and checks
 * that every example ran in it: claims Bound (the MIG tenant on the simulated MIG GPU too), every
 * claimed pod released by the operator (bound by the demo's stand-in scheduler) and allocated
 * through the device plugin, every workload's launches completed through the agent, and the live
 * resize reaching Bound with 32 SMs that the trainer's own kernels then see, and the interference
 * guard shortening the guarded inference's modelled tail beside its best-effort neighbour.
 */
class DemoTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();
  private static DemoReport report;
  private static String output;

  /** The examples' claims, each named after the pod that uses it. */
  private static final List<String> CLAIMED_PODS =
      List.of(
          "detector",
          "batch",
          "model-a",
          "model-b",
          "model-c",
          "inference",
          "neighbour",
          "trainer",
          "untrusted-tenant");

  /**
   * The examples' workloads that launch kernels: the claimed pods but the MIG one, and the voter.
   */
  private static final List<String> WORKLOADS =
      java.util.stream.Stream.concat(
              CLAIMED_PODS.stream().filter(p -> !p.equals("untrusted-tenant")),
              java.util.stream.Stream.of("voter"))
          .toList();

  @BeforeAll
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  static void runDemo() throws Exception {
    Path operatorJar = REPOSITORY.resolve("operator/target/quarkus-app/quarkus-run.jar");
    assertThat(operatorJar)
        .as("the demo runs the operator's fast-jar; build the operator module first")
        .exists();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      report = new Demo(new DemoOptions(30, true, REPOSITORY, "simulated"), out).execute();
    } finally {
      output = bytes.toString(StandardCharsets.UTF_8);
      Files.writeString(Path.of("target/demo-test-output.txt"), output);
    }
  }

  @Test
  void everyCheckOfTheDemoPasses() {
    assertThat(report.problems()).as(output).isEmpty();
    assertThat(report.backend()).isEqualTo("simulated");
    assertThat(output).contains("SIMULATED GPU");
  }

  @Test
  void theTableLeadsWithTheModelledVerdictAndShowsEachEventLineOnce() {
    assertThat(output)
        .contains("DEADLINE   GPU-P99  GPU-MISS  HOST-P50  HOST-P99 HOST-MISS")
        .contains("each frame's GPU time, modelled from H200 measurements: the verdict");
    List<String> kubeletLines =
        output.lines().filter(l -> l.startsWith("kubelet: ") && l.contains(" allocated ")).toList();
    assertThat(kubeletLines).as("the kubelet's allocations").isNotEmpty().doesNotHaveDuplicates();
  }

  @Test
  void theSimulatedGpuRunsAPhaseWithoutSlicingAndReportsEachPhasesDeadlines() {
    assertThat(output).contains("WHAT IF: slicing (and the guard) turned OFF");
    for (String pod : List.of("detector", "model-a", "model-b", "model-c")) {
      assertThat(report.deadlines().lines())
          .as(pod)
          .anySatisfy(
              line ->
                  assertThat(line).contains(pod + ": with slicing").contains("; without slicing"));
    }
  }

  @Test
  void inModelledGpuTimeTheEnsembleAndDetectorMeetTheirDeadlinesWithSlicingAndMissThemWithout() {
    assertThat(report.deadlines().modelled())
        .extracting(DeadlinePhases.MissRates::pod)
        .containsExactlyInAnyOrder("detector", "model-a", "model-b", "model-c", "inference");
    for (DeadlinePhases.MissRates rates : report.deadlines().modelled()) {
      assertThat(rates.withSlicing()).as(rates.pod() + " with slicing").isLessThan(0.01);
      assertThat(rates.withoutSlicing()).as(rates.pod() + " without slicing").isGreaterThan(0.01);
    }
    // The wall clock is reported beside it, with what the host added, never folded into it.
    assertThat(report.deadlines().lines())
        .filteredOn(line -> !line.contains("voter"))
        .hasSize(5)
        .allSatisfy(
            line ->
                assertThat(line)
                    .contains("in modelled GPU time")
                    .contains("on the wall clock")
                    .contains("this host added"));
  }

  @Test
  void everyClaimIsBound() {
    assertThat(report.claimSteps().keySet()).containsExactlyInAnyOrderElementsOf(CLAIMED_PODS);
    report
        .claimSteps()
        .forEach(
            (claim, steps) ->
                assertThat(steps).as(claim).extracting(ClaimHistory.Step::phase).contains("Bound"));
  }

  @Test
  void everyClaimedPodIsBoundToTheNodeAndAllocated() {
    for (String pod : CLAIMED_PODS) {
      assertThat(report.podNodes().get(pod)).as(pod).isEqualTo(Demo.NODE);
      assertThat(report.allocations()).as(pod).containsKey(Demo.NAMESPACE + "/" + pod);
    }
    assertThat(report.allocations().get("default/detector"))
        .containsExactly("detector: 16 x smslice.io/sm");
    assertThat(report.allocations().get("default/untrusted-tenant"))
        .containsExactly("tenant: 1 x smslice.io/mig");
  }

  @Test
  void everyWorkloadCompletedLaunchesOnItsSlice() {
    for (String pod : WORKLOADS) {
      assertThat(report.workloads().get(pod).launches()).as(pod).isPositive();
    }
    assertThat(report.workloads().get("detector").smsSeen()).isEqualTo(16);
    assertThat(report.workloads().get("model-b").smsSeen()).isEqualTo(16);
    assertThat(report.workloads().get("batch").smsSeen()).isEqualTo(104);
    assertThat(report.workloads().get("neighbour").smsSeen()).isEqualTo(116);
  }

  @Test
  void theResizeReachesBoundWithTheNewSmsWhileTheTrainerRuns() {
    assertThat(report.claimSteps().get("trainer"))
        .containsSubsequence(
            new ClaimHistory.Step("Bound", 16),
            new ClaimHistory.Step("Resizing", 16),
            new ClaimHistory.Step("Bound", 32));
    LatencyStats.Snapshot trainer = report.workloads().get("trainer");
    assertThat(trainer.launches()).isGreaterThan(report.launchesBeforeResize());
    assertThat(trainer.smsSeen()).as("SMs the trainer's record_smid kernel reached").isEqualTo(32);
  }

  @Test
  void theGuardShortensTheGuardedInferencesModelledTailAndItsNeighbourStillRuns() {
    assertThat(output).contains("GUARD ON");
    GuardPhases.Tail off = report.guard().off().get(GuardPhases.GUARDED);
    GuardPhases.Tail on = report.guard().on().get(GuardPhases.GUARDED);
    assertThat(off.frames()).isPositive();
    assertThat(on.frames()).isPositive();
    assertThat(on.p99()).isLessThanOrEqualTo((long) (GuardPhases.BETTER * off.p99()));
    assertThat(on.misses()).isZero();
    GuardPhases.Tail neighbourOn = report.guard().on().get(GuardPhases.NEIGHBOUR);
    assertThat(neighbourOn.perSecond()).isPositive();
    assertThat(report.guard().lines())
        .anySatisfy(line -> assertThat(line).startsWith("guard, inference (LatencyCritical)"))
        .anySatisfy(line -> assertThat(line).startsWith("guard, neighbour (BestEffort)"));
  }
}
