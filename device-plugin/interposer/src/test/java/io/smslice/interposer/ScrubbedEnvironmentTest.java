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
  void theClaimsVariablesTheProcessHasWinAndOthersInTheFileAreIgnored() throws Exception {
    Path file = tenantEnvFile("LD_LIBRARY_PATH=/evil\nnoequals\n");
    Files.writeString(
        file,
        Files.readString(file)
            .replace(ProgramRun.TOKEN, "token-in-the-file")
            .replace(dir.resolve("agent.sock").toString(), "/nowhere.sock"));
    Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("agent.sock"));
    env.put("SMSLICE_TENANT_ENV", file.toString());
    try (FakeAgent agent = agent()) {
      ProgramRun run = ProgramRun.run(env, "runtime_like", "mps-env");

      assertThat(agent.attaches().getFirst().token()).isEqualTo(ProgramRun.TOKEN);
      // LD_LIBRARY_PATH=/evil would hide the fake driver: the run would fail to load it.
      assertThat(run.step("legacy"))
          .isEqualTo("legacy 0 kernel " + InterposerConfinementTest.SLICE);
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  /** Outside the claim's MPS server a process is time-sliced against every tenant of the GPU. */
  @Test
  void theClaimsMpsPipeReplacesAMissingOrADifferentOne() throws Exception {
    Path file = tenantEnvFile("CUDA_MPS_PIPE_DIRECTORY=/run/nvidia/mps\n");
    for (String own : new String[] {null, "/mine"}) {
      Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("agent.sock"));
      env.put("SMSLICE_TENANT_ENV", file.toString());
      if (own != null) env.put("CUDA_MPS_PIPE_DIRECTORY", own);
      try (FakeAgent agent = agent()) {
        ProgramRun run = ProgramRun.run(env, "runtime_like", "mps-env");

        assertThat(run.step("mps-env"))
            .as("process had " + own)
            .isEqualTo("mps-env /run/nvidia/mps");
        assertThat(run.step("legacy"))
            .isEqualTo("legacy 0 kernel " + InterposerConfinementTest.SLICE);
      }
    }
  }

  @Test
  void anEmptyTokenIsTakenFromTheFile() throws Exception {
    Path file = tenantEnvFile("");
    Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("agent.sock"));
    env.put("SMSLICE_TENANT_ENV", file.toString());
    env.put("SMSLICE_TOKEN", "");
    try (FakeAgent agent = agent()) {
      ProgramRun run = ProgramRun.run(env, "runtime_like", "runtime");

      assertThat(run.step("legacy"))
          .isEqualTo("legacy 0 kernel " + InterposerConfinementTest.SLICE);
      assertThat(agent.attaches().getFirst().token()).isEqualTo(ProgramRun.TOKEN);
    }
  }

  /** A library's constructor runs before the interposer's own: the file must be read anyway. */
  @Test
  void cudaUsedFromALibraryConstructorInAScrubbedProcessAttaches() throws Exception {
    Path file = tenantEnvFile("");
    try (FakeAgent agent = agent()) {
      ProgramRun run =
          ProgramRun.run(Map.of("SMSLICE_TENANT_ENV", file.toString()), "ctor_linked_like");

      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.step("ctor-cuInit")).isEqualTo("ctor-cuInit 0");
      assertThat(run.step("ctor-launch"))
          .isEqualTo("ctor-launch 0 kernel " + InterposerConfinementTest.SLICE);
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  @Test
  void withoutVariablesOrFileCudaStillFailsLoudly() throws Exception {
    try (FakeAgent agent = agent()) {
      ProgramRun run =
          ProgramRun.run(
              Map.of(
                  "SMSLICE_TENANT_ENV",
                  dir.resolve("absent.env").toString(),
                  "SMSLICE_ATTACH_FAILURE",
                  "refuse"),
              "runtime_like",
              "runtime");

      assertThat(run.step("legacy")).matches("legacy [1-9][0-9]* -");
      assertThat(run.stderr()).contains("smslice: ").contains("SMSLICE_CLAIM is not set");
      assertThat(agent.attaches()).isEmpty();
    }
  }
}
