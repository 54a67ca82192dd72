package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Loader paths past the preloaded library, and the interposer beside the dynamic loader. */
class LoaderEscapeTest {
  static final String GPU = InterposerConfinementTest.GPU;
  static final String SLICE = InterposerConfinementTest.SLICE;

  @TempDir Path dir;

  private FakeAgent agent() throws Exception {
    return new FakeAgent(
        dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16));
  }

  /** The runtime-like program as a library, loaded with RTLD_DEEPBIND or into a new namespace. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"deepbind", "dlmopen"})
  void aCudaLibraryLoadedApartFromTheInterposerStillRunsInTheSlice(String how) throws Exception {
    try (FakeAgent agent = agent()) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")),
              "loader_like",
              how,
              "runtime");

      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.step("cuInit")).isEqualTo("cuInit 0 ok");
      for (String step : new String[] {"legacy", "created", "thread-set", "thread-push-created"})
        assertThat(run.step(step)).isEqualTo(step + " 0 kernel " + SLICE);
      assertThat(run.step("graph")).isEqualTo("graph 0 graph " + SLICE);
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  @Test
  void dlopenKeepsTheCallersRunpathWithAndWithoutDeepbind() throws Exception {
    ProgramRun run = ProgramRun.run(Map.of(), "runpath_like");

    assertThat(run.lines()).containsExactly("plain 1", "deep 1");
  }

  @Test
  void aLibraryConstructorUsingCudaWhileAnotherThreadBuildsTheSliceDoesNotDeadlock()
      throws Exception {
    try (FakeAgent agent = agent()) {
      Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("agent.sock"));
      env.put("FAKECUDA_DEVICE_COUNT_DELAY_MS", "400");
      ProgramRun run =
          RunningProgram.start(env, "lifecycle_like", "loader-deadlock")
              .finish(Duration.ofSeconds(20));

      assertThat(run.step("ctor-launch")).isEqualTo("ctor-launch 0 kernel " + SLICE);
      assertThat(run.step("dlopen")).isEqualTo("dlopen 0 ok");
      assertThat(run.step("launch")).isEqualTo("launch 0 kernel " + SLICE);
    }
  }
}
