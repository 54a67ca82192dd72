package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program may sub-partition its own slice with green contexts (torch.cuda.green_contexts, SGLang,
 * FlashInfer): the SM resource it is shown is the slice's, and green contexts made from splits of
 * it stay inside the claim's groups. Green contexts of any other SMs are refused.
 */
class ProgramGreenContextTest {
  static final String GPU = InterposerConfinementTest.GPU;
  static final String SLICE = InterposerConfinementTest.SLICE;

  @TempDir Path dir;

  @Test
  void aProgramsGreenContextsAreMadeFromTheSliceAndStayInsideIt() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "program-green");

      assertThat(run.step("device-sms")).isEqualTo("device-sms 0 16");
      // The second half of a split of the slice (groups 2,3): its second group of 8 SMs.
      assertThat(run.step("own-green"))
          .isEqualTo("own-green 0 kernel green(dev1;min8;groups2,3:1;flags1)");
      assertThat(run.step("destroy-green")).isEqualTo("destroy-green 0 ok");
      assertThat(run.step("context-sms")).isEqualTo("context-sms 0 16");
      assertThat(run.step("after-green")).isEqualTo("after-green 0 kernel " + SLICE);
      assertThat(run.step("other-device-green")).isEqualTo("other-device-green 800 -");
      assertThat(run.step("whole-device-green")).isEqualTo("whole-device-green 800 -");
      assertThat(run.stderr().lines())
          .hasSize(2)
          .allMatch(l -> l.startsWith("smslice: ") && l.contains("SMs outside its slice"));
    }
  }

  @Test
  void theCuda13StructuredSplitOfTheSliceMakesGreenContextsInsideIt() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16))) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "structured-green");

      assertThat(run.step("structured-green"))
          .isEqualTo("structured-green 0 kernel green(dev1;min8;groups2,3:0;flags1)");
      assertThat(run.stderr()).isEmpty();
    }
  }
}
