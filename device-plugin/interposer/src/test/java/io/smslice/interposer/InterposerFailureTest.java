package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * When the slice cannot be had, CUDA fails with an error code and one "smslice:" line on stderr,
 * and no work ever runs in an unconfined context.
 */
class InterposerFailureTest {
  static final String GPU = InterposerConfinementTest.GPU;

  @TempDir Path dir;

  static Stream<Arguments> refusals() {
    Function<FakeAgent.Attach, byte[]> unauthorized =
        a -> FakeAgent.error(FakeAgent.UNAUTHORIZED, "wrong claim or token");
    Function<FakeAgent.Attach, byte[]> unavailable =
        a -> FakeAgent.error(FakeAgent.UNAVAILABLE, "GPU runs no MPS server");
    Function<FakeAgent.Attach, byte[]> truncated =
        a -> {
          byte[] ok = FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16);
          return java.util.Arrays.copyOf(ok, ok.length - 2);
        };
    Function<FakeAgent.Attach, byte[]> groupOutsideSplit =
        a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 16}, 16);
    Function<FakeAgent.Attach, byte[]> hangUp = a -> null;
    Function<FakeAgent.Attach, byte[]> trailingBytes =
        a -> ByteBuffer.allocate(200).put(FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16)).array();
    return Stream.of(
        Arguments.of(
            "UNAUTHORIZED", unauthorized, "refused ATTACH with UNAUTHORIZED: wrong claim or token"),
        Arguments.of(
            "UNAVAILABLE", unavailable, "refused ATTACH with UNAVAILABLE: GPU runs no MPS server"),
        Arguments.of("truncated answer", truncated, "malformed ATTACH answer"),
        Arguments.of("group id outside the split", groupOutsideSplit, "malformed ATTACH answer"),
        Arguments.of("trailing bytes", trailingBytes, "malformed ATTACH answer"),
        Arguments.of("hang-up", hangUp, "closed the connection without an answer"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void aRefusedOrMalformedAttachFailsCudaLoudly(
      String name, Function<FakeAgent.Attach, byte[]> answer, String reason) throws Exception {
    try (FakeAgent agent = new FakeAgent(dir.resolve("agent.sock"), answer)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.refusingTenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "runtime");
      assertFailedLoudly(run, reason);
      assertThat(run.step("cuInit")).isEqualTo("cuInit 800 -");
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  @Test
  void aMissingSocketFailsCudaLoudly() throws Exception {
    ProgramRun run =
        ProgramRun.run(
            ProgramRun.refusingTenantEnvironment(dir.resolve("nobody.sock")),
            "runtime_like",
            "runtime");
    assertFailedLoudly(run, "cannot reach the agent at " + dir.resolve("nobody.sock"));
  }

  @Test
  void aMissingTokenFailsCudaLoudly() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16))) {
      Map<String, String> env = ProgramRun.refusingTenantEnvironment(dir.resolve("agent.sock"));
      env.remove("SMSLICE_TOKEN");
      ProgramRun run = ProgramRun.run(env, "runtime_like", "runtime");
      assertFailedLoudly(run, "SMSLICE_TOKEN is not set");
      assertThat(agent.attaches()).isEmpty();
    }
  }

  @Test
  void aSplitThatDiffersFromTheAgentsFailsContextsLoudly() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 17, new int[] {2, 3}, 16))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.refusingTenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "runtime");
      assertFailedLoudly(run, "gave 16 entries here but 17 at the agent");
      assertThat(run.step("setup")).isEqualTo("setup 800 -");
    }
  }

  @Test
  void groupsHoldingOtherThanTheClaimsSmsFailLoudly() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 24))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.refusingTenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "runtime");
      assertFailedLoudly(run, "groups hold 16 SMs here but 24 at the agent");
    }
  }

  @Test
  void aGpuThisProcessDoesNotSeeFailsLoudly() throws Exception {
    String elsewhere = "GPU-22222222-2222-2222-2222-222222222222";
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(elsewhere, 8, 16, new int[] {2, 3}, 16))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.refusingTenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "runtime");
      assertFailedLoudly(
          run, "the claim's GPU " + elsewhere + " is not among this process's 2 CUDA devices");
    }
  }

  /** Every launch failed, nothing ran in a primary context, one line says why. */
  private static void assertFailedLoudly(ProgramRun run, String reason) {
    assertThat(run.exitCode()).isZero();
    for (String step :
        new String[] {
          "legacy", "per-thread", "created", "prioritised", "graph", "thread-set", "thread-push"
        }) {
      assertThat(run.step(step)).doesNotEndWith(")").matches(step + " [1-9][0-9]* -");
    }
    assertThat(run.lines()).noneMatch(l -> l.contains("primary") || l.contains("green"));
    assertThat(run.stderr().lines())
        .hasSize(1)
        .allMatch(l -> l.startsWith("smslice: ") && l.contains(reason));
  }
}
