package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the program is shown: the context handles it retained (numba compares them), the claim's SM
 * count; and what it may not make: contexts for graphics interop on the whole GPU.
 */
class ContextIdentityTest {
  static final String GPU = InterposerConfinementTest.GPU;
  static final String SLICE = InterposerConfinementTest.SLICE;

  @TempDir Path dir;

  private ProgramRun run(String scenario) throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16))) {
      return ProgramRun.run(
          ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", scenario);
    }
  }

  @Test
  void theProgramSeesThePrimaryContextItRetainedWhileItsWorkRunsInTheSlice() throws Exception {
    ProgramRun run = run("identity");

    assertThat(run.step("launch")).isEqualTo("launch 0 kernel " + SLICE);
    assertThat(run.step("get-current")).isEqualTo("get-current 0 same=1");
    assertThat(run.step("stream-ctx")).isEqualTo("stream-ctx 0 same=1 green=none");
    assertThat(run.step("pointer-ctx")).isEqualTo("pointer-ctx 0 same=1");
    assertThat(run.step("pointer-attributes-ctx")).isEqualTo("pointer-attributes-ctx 0 same=1");
    assertThat(run.step("pop")).isEqualTo("pop 0 same=1");
    assertThat(run.step("launch-after-push")).isEqualTo("launch-after-push 0 kernel " + SLICE);
    assertThat(run.stderr()).isEmpty();
  }

  /** The handle shown is the primary context's: work that names it must still go to the slice. */
  @Test
  void graphKernelNodesAndContextEventsNamingThePrimaryContextRunInTheSlice() throws Exception {
    ProgramRun run = run("work-contexts");

    assertThat(run.step("kernel-node")).isEqualTo("kernel-node 0 " + SLICE);
    assertThat(run.step("generic-kernel-node")).isEqualTo("generic-kernel-node 0 " + SLICE);
    assertThat(run.step("ctx-record-event")).isEqualTo("ctx-record-event 0 " + SLICE);
    assertThat(run.step("memset-node")).isEqualTo("memset-node 0 " + SLICE);
    assertThat(run.step("memcpy-peer")).isEqualTo("memcpy-peer 0 " + SLICE);
    // CUDA_ERROR_NOT_SUPPORTED, not a crash, where the driver lacks an entry point.
    assertThat(run.step("missing-in-driver")).isEqualTo("missing-in-driver 801 -");
    assertThat(run.step("kernel-node-other-device")).isEqualTo("kernel-node-other-device 800 -");
    assertThat(run.stderr().lines())
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("smslice: ").contains("graph kernel node"));
  }

  @Test
  void theClaimsDeviceReportsTheClaimsSmCount() throws Exception {
    ProgramRun run = run("identity");

    assertThat(run.step("sm-count-claim-device")).isEqualTo("sm-count-claim-device 0 16");
    assertThat(run.step("sm-count-other-device")).isEqualTo("sm-count-other-device 0 132");
  }

  @Test
  void aPrimaryContextTheInterposerLearnsOnTheWayIsNotKeptAlive() throws Exception {
    ProgramRun run = run("unseen-primary");

    assertThat(run.step("launch")).isEqualTo("launch 0 kernel " + SLICE);
    assertThat(run.step("primary-refs")).isEqualTo("primary-refs 0 0");
  }

  @Test
  void graphicsInteropContextsAreRefusedLoudly() throws Exception {
    ProgramRun run = run("graphics");

    assertThat(run.step("gl-context")).isEqualTo("gl-context 800 -");
    assertThat(run.step("vdpau-context")).isEqualTo("vdpau-context 800 -");
    assertThat(run.stderr().lines())
        .hasSize(2)
        .allMatch(l -> l.startsWith("smslice: ") && l.contains("interop context"));
  }

  @Test
  void aThreadWithASmallStackBuildsTheSlice() throws Exception {
    ProgramRun run = run("small-stack");

    assertThat(run.exitCode()).isZero();
    assertThat(run.step("small-stack")).isEqualTo("small-stack 0 kernel " + SLICE);
  }
}
