package io.smslice.agent.transparent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Host-pid resolution against a made-up /proc of a node with two containers. */
class HostPidsTest {
  static final String A = "a".repeat(64);
  static final String B = "b0".repeat(32);
  static final String POD =
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice";

  @TempDir Path proc;
  HostPids pids;

  @BeforeEach
  void node() throws IOException {
    process(1, "1", "0::/init.scope", "systemd");
    process(7, "7", "0::/system.slice/containerd.service", "containerd");
    process(4100, "4100\t7", "0::" + POD + "/cri-containerd-" + A + ".scope", "python");
    process(4200, "4200\t7", "0::" + POD + "/cri-containerd-" + B + ".scope", "python");
    process(4300, "4300\t9", "0::" + POD + "/cri-containerd-" + B + ".scope", "trainer");
    process(4400, "4400\t12\t7", "0::" + POD + "/cri-containerd-" + B + ".scope", "nested");
    Files.createDirectories(proc.resolve("self"));
    Files.writeString(proc.resolve("uptime"), "1.0 1.0\n");
    pids = new HostPids(proc);
  }

  private void process(int hostPid, String nspid, String cgroup, String comm) throws IOException {
    Path dir = Files.createDirectories(proc.resolve(Integer.toString(hostPid)));
    Files.writeString(
        dir.resolve("status"),
        "Name:\t" + comm + "\nPid:\t" + hostPid + "\nNSpid:\t" + nspid + "\n");
    Files.writeString(dir.resolve("cgroup"), cgroup + "\n");
    Files.writeString(dir.resolve("comm"), comm + "\n");
  }

  @Test
  void aFullCgroupPathPicksTheProcessAmongSamePids() {
    HostPids.Found found = pids.find(7, "0::" + POD + "/cri-containerd-" + A + ".scope", "python");

    assertThat(found).isEqualTo(new HostPids.Found(4100, A));
  }

  @Test
  void aNamespacedCgroupTailStillMatches() {
    assertThat(pids.find(7, "0::/cri-containerd-" + B + ".scope", "python").hostPid())
        .isEqualTo(4200);
  }

  @Test
  void aRootCgroupSaysNothingAndTheCommandDecides() {
    assertThat(pids.find(9, "0::/", "trainer")).isEqualTo(new HostPids.Found(4300, B));
    // Two processes are pid 7 in their containers and both run python: not guessed.
    assertThat(pids.find(7, "0::/", "python")).isEqualTo(new HostPids.Found(-1, ""));
  }

  @Test
  void theInnermostNamespaceCounts() {
    assertThat(pids.find(12, "0::/", "x").hostPid()).isEqualTo(-1);
    assertThat(pids.find(7, "0::/", "nested").hostPid()).isEqualTo(4400);
  }

  @Test
  void aProcessOfTheHostNamespaceIsItself() {
    assertThat(pids.find(1, "0::/init.scope", "systemd")).isEqualTo(new HostPids.Found(1, ""));
  }

  @Test
  void unknownPidsAndMismatchedCgroupsAreNotFound() {
    assertThat(pids.find(99, "0::/", "python").hostPid()).isEqualTo(-1);
    HostPids.Found other =
        pids.find(7, "0::/cri-containerd-" + "c".repeat(64) + ".scope", "python");
    assertThat(other).isEqualTo(new HostPids.Found(-1, "c".repeat(64)));
  }

  @Test
  void cgroupV1LinesMatchTheirOwnHierarchy() throws IOException {
    Path dir = Files.createDirectories(proc.resolve("5000"));
    Files.writeString(dir.resolve("status"), "NSpid:\t5000\t1\n");
    Files.writeString(
        dir.resolve("cgroup"), "12:memory:/docker/" + A + "\n4:cpu,cpuacct:/docker/" + A + "\n");
    Files.writeString(dir.resolve("comm"), "app\n");

    assertThat(pids.find(1, "4:cpu,cpuacct:/docker/" + A, "app"))
        .isEqualTo(new HostPids.Found(5000, A));
    assertThat(pids.find(1, "4:memory:/docker/" + A, "app").hostPid()).isEqualTo(-1);
  }

  @Test
  void aMissingProcTreeFindsNothing() {
    assertThat(new HostPids(proc.resolve("absent")).find(7, "0::/", "python").hostPid())
        .isEqualTo(-1);
  }
}
