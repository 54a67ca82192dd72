package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process whose environment was scrubbed (env -i, sudo) still attaches to its claim: the
 * interposer takes the claim's variables from the file the node side mounts for the container.
 */
class ScrubbedEnvironmentTest {
  static final String GPU = InterposerConfinementTest.GPU;

  @TempDir Path dir;

  private Path tenantEnvFile(String extra) throws Exception {
    Path file = dir.resolve("tenant.env");
    StringBuilder text = new StringBuilder();
    ProgramRun.tenantEnvironment(dir.resolve("agent.sock"))
        .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, text + extra);
    return file;
  }

  private FakeAgent agent() throws Exception {
    return new FakeAgent(
        dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16));
  }

  @Test
  void aProcessWithoutTheClaimsVariablesAttachesWithTheMountedOnes() throws Exception {
    Path file = tenantEnvFile("CUDA_MPS_PIPE_DIRECTORY=/run/nvidia/mps\n");
    try (FakeAgent agent = agent()) {
      ProgramRun run =
          ProgramRun.run(Map.of("SMSLICE_TENANT_ENV", file.toString()), "runtime_like", "mps-env");

      assertThat(run.step("mps-env")).isEqualTo("mps-env /run/nvidia/mps");
      assertThat(run.step("legacy"))
          .isEqualTo("legacy 0 kernel " + InterposerConfinementTest.SLICE);
      assertThat(agent.attaches()).hasSize(1);
      assertThat(agent.attaches().getFirst().claim()).isEqualTo(ProgramRun.CLAIM);
      assertThat(agent.attaches().getFirst().token()).isEqualTo(ProgramRun.TOKEN);
      assertThat(run.stderr()).isEmpty();
    }
  }

  @Test
  void variablesTheProcessHasWinAndOthersInTheFileAreIgnored() throws Exception {
    Path file =
        tenantEnvFile("CUDA_MPS_PIPE_DIRECTORY=/run/nvidia/mps\nLD_LIBRARY_PATH=/evil\nnoequals\n");
    Map<String, String> env = new java.util.HashMap<>();
    env.put("SMSLICE_TENANT_ENV", file.toString());
    env.put("CUDA_MPS_PIPE_DIRECTORY", "/mine");
    try (FakeAgent agent = agent()) {
      ProgramRun run = ProgramRun.run(env, "runtime_like", "mps-env");

      assertThat(run.step("mps-env")).isEqualTo("mps-env /mine");
      // LD_LIBRARY_PATH=/evil would hide the fake driver: the run would fail to load it.
      assertThat(run.step("legacy"))
          .isEqualTo("legacy 0 kernel " + InterposerConfinementTest.SLICE);
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  @Test
  void withoutVariablesOrFileCudaStillFailsLoudly() throws Exception {
    try (FakeAgent agent = agent()) {
      ProgramRun run =
          ProgramRun.run(
              Map.of("SMSLICE_TENANT_ENV", dir.resolve("absent.env").toString()),
              "runtime_like",
              "runtime");

      assertThat(run.step("legacy")).matches("legacy [1-9][0-9]* -");
      assertThat(run.stderr()).contains("smslice: ").contains("SMSLICE_CLAIM is not set");
      assertThat(agent.attaches()).isEmpty();
    }
  }
}
