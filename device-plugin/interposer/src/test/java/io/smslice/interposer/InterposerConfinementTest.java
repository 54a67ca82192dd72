package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interposer against a fake driver: every way work reaches a context lands in the slice. */
class InterposerConfinementTest {
  /** Fake device 1's UUID (device 0's is all zeros): the interposer must pick the device by it. */
  static final String GPU = "GPU-11111111-1111-1111-1111-111111111111";

  /** The fake splits like the H200: 15 groups of 8 SMs and a remainder of 12 (id 15). */
  static final String SLICE = "green(dev1;min8;groups2,3;flags1)";

  @TempDir Path dir;

  private FakeAgent agent(int min, int entries, int[] groups, int sms) throws Exception {
    return new FakeAgent(
        dir.resolve("agent.sock"), a -> FakeAgent.ok(GPU, min, entries, groups, sms));
  }

  @Test
  void everyStreamKindThreadAndGraphOfARuntimeProgramRunsInTheClaimsGroups() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "runtime");

      assertThat(run.exitCode()).isZero();
      for (String step :
          List.of(
              "legacy",
              "legacy-handle",
              "per-thread",
              "per-thread-handle",
              "created",
              "non-blocking",
              "prioritised",
              "thread-set",
              "thread-set-created",
              "thread-push",
              "thread-push-created")) {
        assertThat(run.step(step)).isEqualTo(step + " 0 kernel " + SLICE);
      }
      assertThat(run.step("graph")).isEqualTo("graph 0 graph " + SLICE);
      assertThat(run.step("graph-per-thread")).isEqualTo("graph-per-thread 0 graph " + SLICE);
      // The program is shown the primary context it retained (ContextIdentityTest), never run in
      // it.
      assertThat(run.step("get-current")).isEqualTo("get-current 0 primary(dev1)");
      assertThat(run.step("stream-ctx")).isEqualTo("stream-ctx 0 primary(dev1)");
      assertThat(run.step("stream-ctx-per-thread"))
          .isEqualTo("stream-ctx-per-thread 0 primary(dev1)");
      assertThat(run.lines())
          .noneMatch(l -> l.contains("kernel primary") || l.contains("graph primary"));
      assertThat(run.stderr()).isEmpty();
    }
  }

  @Test
  void theProcessRegistersWithItsClaimTokenPidCgroupAndCommandOnce() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun.run(
          ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "runtime");

      assertThat(agent.attaches()).hasSize(1);
      FakeAgent.Attach attach = agent.attaches().getFirst();
      assertThat(attach.op()).isEqualTo(18);
      assertThat(attach.claim()).isEqualTo(ProgramRun.CLAIM);
      assertThat(attach.token()).isEqualTo(ProgramRun.TOKEN);
      assertThat(attach.pid()).isPositive().isNotEqualTo((int) ProcessHandle.current().pid());
      assertThat(attach.cgroup())
          .isEqualTo(Files.readAllLines(Path.of("/proc/self/cgroup")).getFirst());
      assertThat(attach.command()).isEqualTo("runtime_like");
    }
  }

  @Test
  void theGreenContextIsMadeOfExactlyTheGroupsAndSplitTheAgentNames() throws Exception {
    // The remainder (id 15) with group 0: 8 + 12 SMs.
    try (FakeAgent agent = agent(8, 16, new int[] {0, 15}, 20)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "runtime");
      assertThat(run.step("legacy"))
          .isEqualTo("legacy 0 kernel green(dev1;min8;groups0,15;flags1)");
    }
    // A coarser split: minCount 16 gives 7 groups of 16 and a remainder of 20 here.
    try (FakeAgent agent = agent(16, 8, new int[] {6, 1, 4}, 48)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "runtime");
      assertThat(run.step("created"))
          .isEqualTo("created 0 kernel green(dev1;min16;groups6,1,4;flags1)");
    }
  }

  @Test
  void aProgramLinkedWithLibcudaIsConfinedThroughTheExportedSymbols() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "linked_like");

      assertThat(run.step("launch-set")).isEqualTo("launch-set 0 kernel " + SLICE);
      assertThat(run.step("launch-push")).isEqualTo("launch-push 0 kernel " + SLICE);
      assertThat(agent.attaches()).hasSize(1);
    }
  }

  @Test
  void onlyTheHookedEntryPointsAreWrappedTheRestAreTheDriversOwn() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")),
              "runtime_like",
              "passthrough");

      for (String unhooked : List.of("cuMemAlloc", "cuStreamCreate", "cuDeviceGet")) {
        assertThat(run.step(unhooked)).isEqualTo(unhooked + " 0 driver's-own=1");
      }
      for (String hooked :
          List.of(
              "cuCtxSetCurrent",
              "cuCtxPushCurrent",
              "cuCtxGetCurrent",
              "cuDevicePrimaryCtxRetain",
              "cuCtxCreate",
              "cuGreenCtxCreate",
              "cuGetProcAddress",
              "cuLaunchKernel")) {
        assertThat(run.step(hooked)).isEqualTo(hooked + " 0 driver's-own=0");
      }
    }
  }

  @Test
  void aProgramsOwnContextsAreConfinedOrRefusedLoudly() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "driver");

      assertThat(run.step("create-on-claim-device")).isEqualTo("create-on-claim-device 0 " + SLICE);
      assertThat(run.step("created-context-stream"))
          .isEqualTo("created-context-stream 0 kernel " + SLICE);
      assertThat(run.step("destroy")).isEqualTo("destroy 0 ok");
      assertThat(run.step("after-destroy-current")).isEqualTo("after-destroy-current 0 none");
      assertThat(run.step("create-v2-on-claim-device"))
          .isEqualTo("create-v2-on-claim-device 0 " + SLICE);
      assertThat(run.step("create-on-other-device")).isEqualTo("create-on-other-device 800 -");
      assertThat(run.step("create-with-affinity")).isEqualTo("create-with-affinity 800 -");
      assertThat(run.step("program-green-context")).isEqualTo("program-green-context 800 -");
      assertThat(run.step("set-other-device-primary")).isEqualTo("set-other-device-primary 800 -");
      assertThat(run.stderr().lines())
          .hasSize(4)
          .allMatch(l -> l.startsWith("smslice: "))
          .anyMatch(l -> l.contains("device 0 refused"))
          .anyMatch(l -> l.contains("execution-affinity"))
          .anyMatch(l -> l.contains("cuGreenCtxCreate by the program"))
          .anyMatch(l -> l.contains("cuCtxSetCurrent of a context outside"));
    }
  }

  @Test
  void aForkedChildAttachesWithItsOwnPidAndIsConfined() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "fork");

      assertThat(run.step("parent")).isEqualTo("parent 0 kernel " + SLICE);
      assertThat(run.step("child")).isEqualTo("child 0 kernel " + SLICE);
      assertThat(run.step("parent-after-fork")).isEqualTo("parent-after-fork 0 kernel " + SLICE);
      int parent = pidOf(run, "parent-pid-");
      int child = pidOf(run, "child-pid-");
      assertThat(agent.attaches()).extracting(FakeAgent.Attach::pid).containsExactly(parent, child);
    }
  }

  @Test
  void anExecutedProgramRegistersAnewAndTheOldRegistrationEndsAtExec() throws Exception {
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")), "runtime_like", "exec");

      assertThat(run.step("legacy")).isEqualTo("legacy 0 kernel " + SLICE);
      int pid = agent.attaches().getFirst().pid();
      assertThat(agent.attaches()).extracting(FakeAgent.Attach::pid).containsExactly(pid, pid);
      assertThat(agent.events()).startsWith("attach " + pid, "closed " + pid, "attach " + pid);
    }
  }

  private static int pidOf(ProgramRun run, String prefix) {
    String line = run.lines().stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
    return Integer.parseInt(line.substring(prefix.length(), line.indexOf(' ')));
  }

  @Test
  void theAgentEndingTheRegistrationIsLoggedTheSliceStaysAndTheProcessRegistersAgain()
      throws Exception {
    Path socket = dir.resolve("agent.sock");
    try (FakeAgent agent =
        new FakeAgent(socket, a -> FakeAgent.ok(GPU, 8, 16, new int[] {2, 3}, 16), true)) {
      ProgramRun run =
          ProgramRun.run(ProgramRun.tenantEnvironment(socket), "runtime_like", "linger");

      assertThat(run.step("thread-push-created"))
          .isEqualTo("thread-push-created 0 kernel " + SLICE);
      assertThat(run.stderr().lines())
          .allMatch(l -> l.startsWith("smslice: "))
          .first()
          .satisfies(l -> assertThat(l).contains("the agent ended this process's registration"));
      int pid = agent.attaches().getFirst().pid();
      assertThat(agent.attaches()).hasSizeGreaterThan(1).allMatch(a -> a.pid() == pid);
    }
  }

  @Test
  void valgrindFindsNoMemoryErrorsInTheRuntimePath() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/valgrind")), "valgrind is not installed");
    try (FakeAgent agent = agent(8, 16, new int[] {2, 3}, 16)) {
      ProgramRun run =
          ProgramRun.run(
              ProgramRun.tenantEnvironment(dir.resolve("agent.sock")),
              "valgrind",
              "-q",
              "--error-exitcode=99",
              "runtime_like",
              "runtime");

      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.step("thread-push-created"))
          .isEqualTo("thread-push-created 0 kernel " + SLICE);
    }
  }
}
