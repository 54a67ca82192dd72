package io.smslice.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.agent.guard.GpuGuard;
import io.smslice.agent.guard.HoldOn;
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

/** The transparent settings: on by default in worker mode, and never with in-agent claims. */
class TransparentConfigTest {
  @TempDir Path dir;

  private NodeConfig load(String yaml) throws IOException {
    Files.writeString(dir.resolve("default.yaml"), yaml);
    return new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
  }

  @Test
  void onByDefaultInWorkerModeWithTheChartsHostPathsAndGreenGpusThenNeedMps() throws IOException {
    NodeConfig c = load("version: v1\n");
    assertThat(c.transparent().enabled()).isTrue();
    assertThat(c.transparent().library())
        .isEqualTo(Path.of("/opt/smslice/interposer/libsmslice-interposer.so"));
    assertThat(c.transparent().installDirectory())
        .isEqualTo(Path.of("/var/lib/smslice/interposer"));
    assertThat(c.transparent().mpsShm()).isEqualTo(Path.of("/run/smslice/mps/shm"));
    assertThat(c.needsMps(GpuMode.Green)).isTrue();
    assertThat(c.needsMps(GpuMode.MIG)).isFalse();
  }

  @Test
  void offByDefaultInAgentModeWhereGreenGpusRunNoMps() throws IOException {
    NodeConfig c = load("version: v1\nrunMode: in-agent\n");
    assertThat(c.transparent().enabled()).isFalse();
    assertThat(c.needsMps(GpuMode.Green)).isFalse();
  }

  @Test
  void settingsAreRead() throws IOException {
    NodeConfig c =
        load(
            """
            version: v1
            transparent:
              enabled: "false"
              library: /opt/lib/i.so
              installDirectory: /srv/interposer
              mpsShm: /srv/shm
            """);
    assertThat(c.transparent())
        .isEqualTo(
            new Transparent(
                false,
                Path.of("/opt/lib/i.so"),
                Path.of("/srv/interposer"),
                Path.of("/srv/shm"),
                GpuGuard.Settings.DEFAULTS,
                GuardGating.ALWAYS));
  }

  @Test
  void theGuardsLimitsAreReadAndEachOneLeftOutKeepsItsDefault() throws IOException {
    NodeConfig c =
        load(
            """
            version: v1
            transparent:
              guard:
                sharePercent: 20
                inFlightMicros: 100
                depth: 512
                aheadMicros: 600
            """);
    assertThat(c.transparent().guard())
        .isEqualTo(
            new GpuGuard.Settings(
                GpuGuard.Settings.DEFAULTS.maxHold(),
                0.2,
                GpuGuard.Settings.DEFAULTS.window(),
                512,
                Duration.ofNanos(100_000),
                GpuGuard.Settings.DEFAULTS.holdOn(),
                Duration.ofNanos(600_000)));
    assertThat(load("version: v1\n").transparent().guard()).isEqualTo(GpuGuard.Settings.DEFAULTS);
    assertThatThrownBy(() -> load("version: v1\ntransparent: {guard: {sharePercent: 150}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "transparent.guard.sharePercent is 150: write a number from 0 to 100");
    assertThatThrownBy(() -> load("version: v1\ntransparent: {guard: {share: 0.2}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.guard.share is not a known setting");
    assertThat(
            load("version: v1\ntransparent: {guard: {holdOn: thread}}\n")
                .transparent()
                .guard()
                .holdOn())
        .isEqualTo(HoldOn.THREAD);
    // The defaults the H200 runs of 2026-12-02 chose (docs/interference-guard.md).
    assertThat(GpuGuard.Settings.DEFAULTS.holdOn()).isEqualTo(HoldOn.STREAM);
    assertThat(GpuGuard.Settings.DEFAULTS.inFlight()).isEqualTo(Duration.ofNanos(250_000));
    assertThatThrownBy(() -> load("version: v1\ntransparent: {guard: {holdOn: gpu}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.guard.holdOn is gpu: use thread or stream");
  }

  @Test
  void thePressureGateIsOffUnlessAskedAndItsThresholdsAreChecked() throws IOException {
    assertThat(load("version: v1\n").transparent().gating()).isEqualTo(GuardGating.ALWAYS);
    NodeConfig c =
        load(
            """
            version: v1
            transparent:
              guard:
                onlyUnderPressure: true
                memoryBusyPercent: 70
                pressureHoldSeconds: 30
            """);
    assertThat(c.transparent().gating())
        .isEqualTo(new GuardGating(true, 70, Duration.ofSeconds(30)));
    assertThat(c.transparent().guard()).isEqualTo(GpuGuard.Settings.DEFAULTS);
    assertThatThrownBy(() -> load("version: v1\ntransparent: {guard: {memoryBusyPercent: 0}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.guard.memoryBusyPercent is 0: write a number from 1");
    assertThatThrownBy(
            () -> load("version: v1\ntransparent: {guard: {onlyUnderPressure: maybe}}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "transparent.guard.onlyUnderPressure is 'maybe': write true or false");
  }

  @Test
  void badSettingsAreRejectedWithWhatToWrite() {
    assertThatThrownBy(() -> load("version: v1\nrunMode: in-agent\ntransparent: {enabled: true}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.enabled is true with runMode in-agent")
        .hasMessageContaining("set runMode: worker, or transparent.enabled: false");
    assertThatThrownBy(() -> load("version: v1\ntransparent: {enabled: sometimes}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.enabled is 'sometimes': write true or false");
    assertThatThrownBy(() -> load("version: v1\ntransparent: {mpsShm: run/shm}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.mpsShm is 'run/shm': write an absolute path");
    assertThatThrownBy(() -> load("version: v1\ntransparent: {preload: x}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("transparent.preload is not a known setting");
  }
}
