package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cuCtxCreate_v3 and _v4 of a program linked with -lcuda: a context asked with execution-affinity
 * or CIG parameters is refused (the slice's green context can honour neither), and the same call
 * without them gives a context in the slice. Each refusal is checked at its boundary: one affinity
 * parameter is enough, a non-NULL affinity pointer with a count of 0 is none, and CIG parameters
 * alone are refused.
 */
class ContextParamsTest {
  @TempDir Path dir;

  @Test
  void affinityAndCigParametersAreRefusedAndTheSameCallsWithoutThemConfined() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"),
            a -> FakeAgent.ok(InterposerConfinementTest.GPU, 8, 16, new int[] {2, 3}, 16))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "ctx_params_like");
      String slice = InterposerConfinementTest.SLICE;

      assertThat(run.exitCode()).isZero();
      assertThat(run.step("v3-one-affinity")).isEqualTo("v3-one-affinity 800 -");
      assertThat(run.step("v3-no-affinity")).isEqualTo("v3-no-affinity 0 " + slice);
      assertThat(run.step("v3-affinity-count-0")).isEqualTo("v3-affinity-count-0 0 " + slice);
      assertThat(run.step("v4-cig")).isEqualTo("v4-cig 800 -");
      assertThat(run.step("v4-one-affinity")).isEqualTo("v4-one-affinity 800 -");
      assertThat(run.step("v4-empty-params")).isEqualTo("v4-empty-params 0 " + slice);
      assertThat(run.step("v4-no-params")).isEqualTo("v4-no-params 0 " + slice);
      assertThat(run.stderr().lines())
          .hasSize(3)
          .allMatch(l -> l.startsWith("smslice: "))
          .anyMatch(l -> l.contains("CIG"));
    }
  }
}
