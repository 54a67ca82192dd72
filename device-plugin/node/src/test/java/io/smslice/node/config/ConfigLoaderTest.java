package io.smslice.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.api.v1alpha1.node.GpuMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  private NodeConfig load(String yaml, List<String> flags, Map<String, String> env, String label)
      throws IOException {
    if (yaml != null) {
      Files.writeString(dir.resolve(label == null ? "default.yaml" : label + ".yaml"), yaml);
    }
    List<String> args = new java.util.ArrayList<>(flags);
    args.add("--config-dir=" + dir);
    return new ConfigLoader(args, env).load(Optional.ofNullable(label));
  }

  private void rejects(String yaml, String... messageParts) {
    assertThatThrownBy(() -> load(yaml, List.of(), Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .message()
        .contains(messageParts);
  }

  @Test
  void withoutAFileTheDefaultsApply() throws IOException {
    NodeConfig c = load(null, List.of(), Map.of(), null);
    assertThat(c.source()).startsWith("built-in defaults");
    assertThat(c.backend()).isEqualTo(Backend.AUTO);
    assertThat(c.runMode()).isEqualTo(RunMode.WORKER);
    assertThat(c.resourceNames()).isEqualTo(ResourceNames.DEFAULTS);
    assertThat(c.defaultMode()).isEqualTo(GpuMode.Green);
    assertThat(c.paths()).isEqualTo(NodePaths.DEFAULTS);
    assertThat(c.metricsPort()).isEqualTo(9400);
    assertThat(c.heartbeat()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.mpsControlCommand()).containsExactly("nvidia-cuda-mps-control");
    assertThat(c.allocation()).isEqualTo(Allocation.DEVICE_PLUGIN);
    assertThat(c.simulatedGpus()).isEqualTo(1);
    assertThat(c.paths().kubeletPlugins()).isEqualTo(Path.of("/var/lib/kubelet/plugins"));
    assertThat(c.paths().pluginsRegistry()).isEqualTo(Path.of("/var/lib/kubelet/plugins_registry"));
    assertThat(c.paths().cdi()).isEqualTo(Path.of("/var/run/cdi"));
  }

  @Test
  void draAllocationAndItsPaths() throws IOException {
    NodeConfig c =
        load(
            """
            version: v1
            allocation: dra
            simulatedGpus: 4
            paths: {kubeletPlugins: /k/plugins, pluginsRegistry: /k/registry, cdi: /etc/cdi}
            """,
            List.of(),
            Map.of(),
            null);
    assertThat(c.allocation()).isEqualTo(Allocation.DRA);
    assertThat(c.simulatedGpus()).isEqualTo(4);
    assertThat(c.paths().kubeletPlugins()).isEqualTo(Path.of("/k/plugins"));
    assertThat(c.paths().pluginsRegistry()).isEqualTo(Path.of("/k/registry"));
    assertThat(c.paths().cdi()).isEqualTo(Path.of("/etc/cdi"));
    NodeConfig overridden =
        load(
            "version: v1\nallocation: dra\n",
            List.of("--cdi-dir=/run/cdi"),
            Map.of("SMSLICE_ALLOCATION", "devicePlugin", "SMSLICE_PLUGINS_REGISTRY_DIR", "/r"),
            null);
    assertThat(overridden.allocation()).isEqualTo(Allocation.DEVICE_PLUGIN);
    assertThat(overridden.paths().cdi()).isEqualTo(Path.of("/run/cdi"));
    assertThat(overridden.paths().pluginsRegistry()).isEqualTo(Path.of("/r"));
  }

  @Test
  void readsTheDocumentedShape() throws IOException {
    NodeConfig c =
        load(
            """
            version: v1
            backend: simulated
            runMode: in-agent
            resourceNames: {sm: example.com/sm, mig: example.com/mig, mps: example.com/mps}
            gpus:
              defaultMode: mps
              overrides:
                - {match: 0, mode: green}
                - {match: GPU-0a1b2c3d-1111-2222-3333-444455556666, mode: off}
            """,
            List.of(),
            Map.of(),
            null);
    assertThat(c.backend()).isEqualTo(Backend.SIMULATED);
    assertThat(c.runMode()).isEqualTo(RunMode.IN_AGENT);
    assertThat(c.resourceNames().sm()).isEqualTo("example.com/sm");
    assertThat(c.modeOf(0, "GPU-x")).isEqualTo(GpuMode.Green);
    assertThat(c.modeOf(1, "GPU-0a1b2c3d-1111-2222-3333-444455556666")).isEqualTo(GpuMode.Off);
    assertThat(c.modeOf(2, "GPU-y")).isEqualTo(GpuMode.MPS);
    assertThat(c.needsMps(GpuMode.Green)).isFalse();
    assertThat(c.needsMps(GpuMode.MPS)).isTrue();
  }

  @Test
  void flagsWinOverEnvironmentWhichWinsOverTheFile() throws IOException {
    String yaml = "version: v1\nbackend: cuda\nrunMode: in-agent\ngpus: {defaultMode: mig}\n";
    NodeConfig envOnly =
        load(
            yaml,
            List.of(),
            Map.of("SMSLICE_BACKEND", "simulated", "SMSLICE_DEFAULT_MODE", "off"),
            null);
    assertThat(envOnly.backend()).isEqualTo(Backend.SIMULATED);
    assertThat(envOnly.defaultMode()).isEqualTo(GpuMode.Off);
    assertThat(envOnly.runMode()).isEqualTo(RunMode.IN_AGENT);

    NodeConfig flagged =
        load(
            yaml,
            List.of("--backend=auto", "--run-mode=worker"),
            Map.of("SMSLICE_BACKEND", "simulated"),
            null);
    assertThat(flagged.backend()).isEqualTo(Backend.AUTO);
    assertThat(flagged.runMode()).isEqualTo(RunMode.WORKER);
    assertThat(flagged.defaultMode()).isEqualTo(GpuMode.MIG);
  }

  @Test
  void theNodeLabelPicksANamedConfigAndAFlagOverridesTheLabel() throws IOException {
    Files.writeString(dir.resolve("default.yaml"), "version: v1\ngpus: {defaultMode: green}\n");
    Files.writeString(dir.resolve("mig-nodes.yaml"), "version: v1\ngpus: {defaultMode: mig}\n");
    Files.writeString(dir.resolve("mps-nodes.yaml"), "version: v1\ngpus: {defaultMode: mps}\n");
    List<String> args = List.of("--config-dir=" + dir);
    assertThat(new ConfigLoader(args, Map.of()).load(Optional.of("mig-nodes")).defaultMode())
        .isEqualTo(GpuMode.MIG);
    assertThat(new ConfigLoader(args, Map.of()).load(Optional.empty()).defaultMode())
        .isEqualTo(GpuMode.Green);
    List<String> withFlag = List.of("--config-dir=" + dir, "--config=mps-nodes");
    assertThat(new ConfigLoader(withFlag, Map.of()).load(Optional.of("mig-nodes")).defaultMode())
        .isEqualTo(GpuMode.MPS);
  }

  @Test
  void aNamedConfigThatDoesNotExistIsAnError() {
    assertThatThrownBy(
            () ->
                new ConfigLoader(List.of("--config-dir=" + dir), Map.of())
                    .load(Optional.of("gone")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("gone.yaml does not exist")
        .hasMessageContaining("add the key gone.yaml to the smslice node ConfigMap");
  }

  @Test
  void badConfigsSayWhatToFix() {
    rejects("backend: cuda\n", "version is missing", "add `version: v1`");
    rejects("version: v2\n", "version is 'v2'", "v1");
    rejects(
        "version: v1\ngpus: {defaultMode: grean}\n",
        "gpus.defaultMode is 'grean'",
        "green, mig, mps, off");
    rejects("version: v1\nbackend: gpu\n", "backend is 'gpu'", "auto, cuda, simulated");
    rejects("version: v1\nsimulatedGpus: 0\n", "simulatedGpus is 0");
    rejects("version: v1\nallocation: DRA\n", "allocation is 'DRA'", "devicePlugin, dra");
    rejects("version: v1\npaths: {cdi: cdi}\n", "paths.cdi is 'cdi'", "absolute path");
    rejects("version: v1\nrunmode: worker\n", "runmode is not a known setting", "runMode");
    rejects(
        "version: v1\ngpus: {overrides: [{match: 0, mode: mig}, {match: 0, mode: mps}]}\n",
        "names GPU 0 twice");
    rejects(
        "version: v1\ngpus: {overrides: [{match: first, mode: mig}]}\n",
        "gpus.overrides[0].match is 'first'",
        "index (0) or UUID");
    rejects("version: v1\ngpus: {overrides: [{match: 1}]}\n", "gpus.overrides[0].mode is missing");
    rejects("version: v1\nresourceNames: {sm: sm}\n", "resourceNames.sm is 'sm'", "smslice.io/sm");
    rejects("version: v1\nresourceNames: {mig: smslice.io/sm}\n", "one name for two kinds");
    rejects("version: v1\nresourceNames: {sm: kubernetes.io/sm}\n", "reserved");
    rejects("version: v1\npaths: {run: run}\n", "paths.run is 'run'", "absolute path");
    rejects("version: v1\nmetricsPort: 70000\n", "metricsPort is 70000", "0 to 65535");
    rejects("version: v1\nheartbeatSeconds: soon\n", "heartbeatSeconds is 'soon'", "whole number");
    rejects("version: v1\ngpus: [green]\n", "gpus is '[green]', not a mapping");
    rejects("version: v1\nbackend: [cuda\n", "not valid YAML");
    rejects("- version: v1\n", "not a YAML mapping");
  }

  @Test
  void unknownFlagsAreRejected() {
    assertThatThrownBy(() -> new ConfigLoader(List.of("--backnd=cuda"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown flag --backnd")
        .hasMessageContaining("--backend");
    assertThatThrownBy(() -> new ConfigLoader(List.of("cuda"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--name=value");
  }
}
