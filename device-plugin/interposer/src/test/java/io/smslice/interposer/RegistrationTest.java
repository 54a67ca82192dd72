package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process's registration (its open ATTACH connection) lasts as long as the process: it survives
 * an agent restart and a program that closes its descriptors, it never reads the program's data,
 * and getting it never kills the program or leaves it silently without its slice.
 */
class RegistrationTest {
  static final String GPU = InterposerConfinementTest.GPU;
  static final String SLICE = InterposerConfinementTest.SLICE;

  @TempDir Path dir;

  private Path socket() {
    return dir.resolve("agent.sock");
  }

  private FakeAgent agent() throws Exception {
    return new FakeAgent(socket(), a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16));
  }

  private static void awaitEvent(FakeAgent agent, String event, Duration timeout)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end && !agent.events().contains(event)) Thread.sleep(20);
    assertThat(agent.events()).as("agent events within " + timeout).contains(event);
  }

  @Test
  void aProcessRegistersAgainWhenTheAgentRestarts() throws Exception {
    RunningProgram program;
    try (FakeAgent first = agent()) {
      program =
          RunningProgram.start(
              ProgramRun.tenantEnvironment(socket()), "lifecycle_like", "hold", "4000");
      assertThat(program.awaitLine("launch ", Duration.ofSeconds(10)))
          .isEqualTo("launch 0 kernel " + SLICE);
      awaitEvent(first, "attach " + program.pid(), Duration.ofSeconds(5));
    }
    try (FakeAgent restarted = agent()) {
      awaitEvent(restarted, "attach " + program.pid(), Duration.ofSeconds(3));
      ProgramRun run = program.finish(Duration.ofSeconds(20));

      assertThat(run.step("launch-after-hold")).isEqualTo("launch-after-hold 0 kernel " + SLICE);
      assertThat(run.stderr())
          .contains("the agent ended this process's registration")
          .contains("registered again with the agent");
    }
  }

  /** Longer than the 30 s answer timeout, after which a watcher with a timeout would read again. */
  @Test
  void closingEveryDescriptorNeitherEndsTheRegistrationNorReadsTheProgramsData() throws Exception {
    try (FakeAgent agent = agent()) {
      RunningProgram program =
          RunningProgram.start(
              ProgramRun.tenantEnvironment(socket()), "lifecycle_like", "close-fds", "31000");
      program.awaitLine("closed-fds", Duration.ofSeconds(10));
      assertThat(program.awaitLine("pipe-read", Duration.ofSeconds(45)))
          .isEqualTo("pipe-read 0 ABCDEFGH");
      program.awaitLine("launch-after-close", Duration.ofSeconds(5));
      assertThat(agent.events())
          .as("the registration is still open while the program runs")
          .containsExactly("attach " + program.pid());
      ProgramRun run = program.finish(Duration.ofSeconds(10));
      assertThat(run.step("launch-after-close")).isEqualTo("launch-after-close 0 kernel " + SLICE);
      assertThat(run.stderr()).isEmpty();
    }
  }

  @Test
  void anAgentThatHangsUpBeforeReadingNeverKillsTheProgramWithSigpipe() throws Exception {
    try (FakeAgent agent = FakeAgent.hangingUpAtOnce(socket())) {
      Map<String, String> env = ProgramRun.refusingTenantEnvironment(socket());
      env.put("SMSLICE_ATTACH_TIMEOUT", "0.3");
      for (int i = 0; i < 6; i++) {
        ProgramRun run = ProgramRun.run(env, "runtime_like", "runtime");
        assertThat(run.exitCode()).as("exit status (141 is SIGPIPE) of run " + i).isZero();
        assertThat(run.step("cuInit")).isEqualTo("cuInit 800 -");
        assertThat(run.stderr()).contains("smslice: ").contains("CUDA is refused");
      }
    }
  }

  @Test
  void aProcessWaitsForAnAgentThatIsNotUpYet() throws Exception {
    Map<String, String> env = ProgramRun.tenantEnvironment(socket());
    env.put("SMSLICE_ATTACH_TIMEOUT", "20");
    RunningProgram program = RunningProgram.start(env, "lifecycle_like", "hold", "0");
    Thread.sleep(700);
    try (FakeAgent agent = agent()) {
      ProgramRun run = program.finish(Duration.ofSeconds(30));

      assertThat(run.exitCode()).isZero();
      assertThat(run.step("launch")).isEqualTo("launch 0 kernel " + SLICE);
      assertThat(agent.attaches()).hasSize(1);
      assertThat(run.stderr())
          .contains("cannot reach the agent")
          .contains("waiting up to 20 s for the agent")
          .contains("registered with the agent after");
    }
  }

  @Test
  void anUnavailableAnswerIsTriedAgain() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    try (FakeAgent agent =
        new FakeAgent(
            socket(),
            a ->
                calls.getAndIncrement() == 0
                    ? FakeAgent.error(FakeAgent.UNAVAILABLE, "MPS server restarting")
                    : FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16))) {
      Map<String, String> env = ProgramRun.tenantEnvironment(socket());
      env.put("SMSLICE_ATTACH_TIMEOUT", "10");
      ProgramRun run = ProgramRun.run(env, "lifecycle_like", "hold", "0");

      assertThat(run.step("launch")).isEqualTo("launch 0 kernel " + SLICE);
      assertThat(agent.attaches()).hasSize(2);
    }
  }

  @Test
  void byDefaultAProcessThatCannotAttachEndsWithAMessageInsteadOfRunningWithoutTheGpu()
      throws Exception {
    Map<String, String> env = ProgramRun.tenantEnvironment(dir.resolve("nobody.sock"));
    env.put("SMSLICE_ATTACH_TIMEOUT", "0.5");
    ProgramRun run = ProgramRun.run(env, "lifecycle_like", "hold", "0");

    assertThat(run.exitCode()).isEqualTo(75);
    assertThat(run.lines()).noneMatch(l -> l.startsWith("launch"));
    assertThat(run.stderr().lines().toList().getLast())
        .startsWith("smslice: ")
        .contains("cannot reach the agent at " + dir.resolve("nobody.sock"))
        .contains("still after")
        .contains("exits with status 75");
  }

  @Test
  void aChildForkedDuringAttachDoesNotKeepTheParentsRegistration() throws Exception {
    try (FakeAgent agent =
        new FakeAgent(
            socket(),
            a -> {
              try {
                Thread.sleep(1000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16);
            })) {
      RunningProgram program =
          RunningProgram.start(
              ProgramRun.tenantEnvironment(socket()),
              "lifecycle_like",
              "fork-during-attach",
              "300");
      String pid = program.awaitLine("parent-exiting", Duration.ofSeconds(10)).split(" ")[2];
      // The child lives 3 s more: the parent's registration must end when the parent does.
      awaitEvent(agent, "closed " + pid, Duration.ofMillis(1500));
      program.finish(Duration.ofSeconds(10));
    }
  }
}
