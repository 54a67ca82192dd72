package io.smslice.node.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.gpu.GpuDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedFaultFilesTest {
  private static final GpuDevice GPU =
      new GpuDevice(0, "GPU-sim-0", "NVIDIA H200 (simulated)", 1L << 30, 132, 8, 2, List.of());

  @TempDir Path faults;

  @Test
  void aFileNamedAfterAGpuIsItsProblemUntilItIsRemoved() throws Exception {
    SimulatedNvml nvml = SimulatedNvml.mirroring(List.of(GPU), faults);
    assertThat(nvml.healthProblem(GPU.uuid())).isEmpty();

    Files.writeString(faults.resolve(GPU.uuid()), "double-bit ECC error (injected)\n");
    assertThat(nvml.healthProblem(GPU.uuid())).contains("double-bit ECC error (injected)");

    Files.delete(faults.resolve(GPU.uuid()));
    assertThat(nvml.healthProblem(GPU.uuid())).isEmpty();
  }

  @Test
  void anEmptyFileStillMarksTheGpuAndSaysWhichFile() throws Exception {
    SimulatedNvml nvml = SimulatedNvml.mirroring(List.of(GPU), faults);
    Files.createFile(faults.resolve(GPU.uuid()));
    assertThat(nvml.healthProblem(GPU.uuid()))
        .hasValueSatisfying(r -> assertThat(r).contains(GPU.uuid()));
  }

  @Test
  void withoutADirectoryOnlyInjectedProblemsCount() {
    SimulatedNvml nvml = SimulatedNvml.mirroring(List.of(GPU));
    assertThat(nvml.healthProblem(GPU.uuid())).isEmpty();
    nvml.setProblem(GPU.uuid(), "injected");
    assertThat(nvml.healthProblem(GPU.uuid())).contains("injected");
  }
}
