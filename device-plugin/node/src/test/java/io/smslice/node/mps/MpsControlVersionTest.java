package io.smslice.node.mps;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MPS control program's version, asked with -v, and what it says about static partitioning. */
class MpsControlVersionTest {
  @TempDir Path tmp;

  @Test
  void parsesTheForms() {
    assertThat(MpsControlVersion.parse("13000\n")).contains(13000);
    assertThat(MpsControlVersion.parse("NVIDIA MPS control version 13010")).contains(13010);
    assertThat(MpsControlVersion.parse("CUDA 13.1")).contains(13010);
    assertThat(MpsControlVersion.parse("usage: nvidia-cuda-mps-control [-d | -f]")).isEmpty();
    assertThat(MpsControlVersion.parse("")).isEmpty();
  }

  @Test
  void readsWhatTheH200MachinesControlProgramPrints() {
    // Verbatim from device-plugin/node/verify/results/2026-12-01-h200-mps-control-version.txt.
    String printed =
        "CUDA MPS Control for Linux/Unix/QNX. Binary version: 13000\n"
            + "Copyright (C) 2003 - 2025 NVIDIA Corporation.\n";
    assertThat(MpsControlVersion.parse(printed)).contains(13000);
  }

  @Test
  void staticPartitioningStartsAt13010() {
    assertThat(MpsControlVersion.staticPartitioning(13000)).isFalse();
    assertThat(MpsControlVersion.staticPartitioning(13010)).isTrue();
  }

  @Test
  void theManagerAsksTheControlProgramOnce() throws Exception {
    NodeFixture fixture = new NodeFixture(tmp);
    List<String> command = fixture.config.mpsControlCommand();
    Files.writeString(tmp.resolve("fake-mps-version"), "13010\n");
    try (MpsDaemonManager manager =
        new MpsDaemonManager(command, tmp.resolve("mps")::resolve, new NodeMetrics())) {
      assertThat(manager.controlVersion()).contains(13010);
      Files.writeString(tmp.resolve("fake-mps-version"), "13000\n");
      assertThat(manager.controlVersion()).contains(13010);
    }
  }

  @Test
  void aMissingOrSilentControlProgramLeavesTheVersionUnknown() throws Exception {
    assertThat(MpsControlVersion.query(List.of(tmp.resolve("no-such-program").toString())))
        .isEmpty();
    Path silent = tmp.resolve("silent.sh");
    Files.writeString(silent, "#!/bin/bash\nexit 3\n");
    silent.toFile().setExecutable(true);
    assertThat(MpsControlVersion.query(List.of(silent.toString()))).isEqualTo(Optional.empty());
  }
}
