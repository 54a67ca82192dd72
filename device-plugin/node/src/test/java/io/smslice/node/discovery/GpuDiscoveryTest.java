package io.smslice.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.api.v1alpha1.node.NodeGpu;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.config.ConfigLoader;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.health.GpuCondition;
import io.smslice.node.nvml.NvmlGpu;
import io.smslice.node.nvml.SimulatedNvml;
import io.smslice.node.testing.NodeFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuDiscoveryTest {
  @TempDir Path tmp;

  @Test
  void mergesCudaAndNvmlByUuidAndAppliesModes() throws Exception {
    NodeFixture f = new NodeFixture(tmp);
    List<DiscoveredGpu> gpus = GpuDiscovery.discover(f.inventory, f.nvml, f.config);

    assertThat(gpus)
        .extracting(DiscoveredGpu::mode)
        .containsExactly(GpuMode.Green, GpuMode.MPS, GpuMode.MIG);
    DiscoveredGpu green = gpus.get(0);
    assertThat(green.smCount()).isEqualTo(132);
    assertThat(green.split()).hasSize(16);
    assertThat(green.minPartitionSize()).isEqualTo(8);
    assertThat(green.minorNumber()).isZero();
    assertThat(gpus.get(1).split()).as("only green GPUs carry the split").isEmpty();
    DiscoveredGpu mig = gpus.get(2);
    assertThat(mig.migDevices()).hasSize(2);
    assertThat(mig.smCount())
        .as("sum of the MIG instances when CUDA does not list the GPU")
        .isEqualTo(32);

    NodeGpu api = NodeGpus.toApi(mig, GpuCondition.HEALTHY);
    assertThat(api.getMigInstances())
        .extracting(m -> m.getProfile())
        .containsExactly("1g.18gb", "1g.18gb");
    assertThat(api.getMigInstances().getFirst().getMemory().toString()).isEqualTo("18176Mi");
    assertThat(api.getMinPartitionSize()).isNull();
  }

  @Test
  void aModeTheHardwareCannotServeTurnsTheGpuOffAndSaysWhy() throws Exception {
    Path dir = tmp.resolve("cfg");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("default.yaml"),
        "version: v1\ngpus: {defaultMode: green, overrides: [{match: 1, mode: mig}]}\n");
    NodeConfig config =
        new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
    var a = SimulatedBackend.h200Device(0);
    var b = SimulatedBackend.h200Device(1);
    SimulatedNvml nvml =
        new SimulatedNvml(
            List.of(
                new NvmlGpu(0, a.uuid(), "H200", a.memoryBytes(), 0, true, List.of()),
                new NvmlGpu(1, b.uuid(), "H200", b.memoryBytes(), 1, false, List.of())));
    List<DiscoveredGpu> gpus =
        GpuDiscovery.discover(new SimulatedBackend(List.of(a, b)), nvml, config);
    assertThat(gpus).extracting(DiscoveredGpu::mode).containsExactly(GpuMode.Off, GpuMode.Off);
    assertThat(gpus.get(0).note()).contains("MIG is enabled");
    assertThat(gpus.get(1).note()).contains("MIG mode is disabled");
  }
}
