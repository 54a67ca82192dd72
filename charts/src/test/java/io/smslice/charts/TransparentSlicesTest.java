package io.smslice.charts;

import static io.smslice.charts.NodeDaemonSetTest.config;
import static io.smslice.charts.NodeDaemonSetTest.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Transparent slices in the node DaemonSet: the MPS shared-memory tmpfs on the host (mounted by a
 * privileged init container, used as the node container's /dev/shm), the host PID namespace, and
 * the host paths the node configs name.
 */
class TransparentSlicesTest {
  @Test
  void onByDefaultTheInitContainerMountsTheSharedMemoryTmpfsOnTheHost() {
    PodSpec pod = pod(Chart.render());

    assertThat(pod.getHostPID()).isTrue();
    Container init =
        pod.getInitContainers().stream()
            .filter(c -> c.getName().equals("mps-shm"))
            .findFirst()
            .orElseThrow();
    assertThat(init.getSecurityContext().getPrivileged()).isTrue();
    assertThat(init.getImage()).startsWith("ghcr.io/smslice/smslice-node:");
    assertThat(init.getCommand().get(2))
        .contains("mount -t tmpfs -o size=\"$SIZE\",mode=1777")
        .contains("mountpoint -q \"$SHM\"");
    assertThat(init.getEnv())
        .extracting(e -> e.getName() + "=" + e.getValue())
        .containsExactly("SHM=/run/smslice/mps/shm", "SIZE=1G");
    VolumeMount parent = init.getVolumeMounts().getFirst();
    assertThat(parent.getMountPath()).isEqualTo("/run/smslice/mps");
    assertThat(parent.getMountPropagation()).isEqualTo("Bidirectional");
    assertThat(hostPath(pod, parent.getName())).isEqualTo("/run/smslice/mps");

    Container node = pod.getContainers().getFirst();
    VolumeMount shm =
        node.getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals("/dev/shm"))
            .findFirst()
            .orElseThrow();
    assertThat(hostPath(pod, shm.getName())).isEqualTo("/run/smslice/mps/shm");
    assertThat(node.getSecurityContext().getPrivileged()).isNull();
  }

  @Test
  void everyConfigNamesTheHostPathsTheDaemonSetMounts() {
    RenderedChart chart =
        Chart.render(
            Map.of(
                "node.hostPaths.interposer", "/opt/smslice/interposer",
                "node.hostPaths.mpsShm", "/var/run/smslice-shm/shm",
                "node.transparent.shmSize", "256Mi"),
            "mixed-modes.yaml");

    for (String name : new String[] {"default", "a100-mig", "shared"}) {
      assertThat(config(chart, name))
          .as(name)
          .containsEntry(
              "transparent",
              Map.of(
                  "installDirectory", "/opt/smslice/interposer",
                  "mpsShm", "/var/run/smslice-shm/shm"));
    }
    PodSpec pod = pod(chart);
    assertThat(hostPath(pod, "mps-shm")).isEqualTo("/var/run/smslice-shm/shm");
    assertThat(hostPath(pod, "mps-shm-parent")).isEqualTo("/var/run/smslice-shm");
    assertThat(pod.getInitContainers().getFirst().getEnv())
        .extracting(e -> e.getName() + "=" + e.getValue())
        .contains("SIZE=256M");
  }

  @Test
  void turnedOffNoInitContainerNoHostPidAndEveryConfigSaysSo() {
    RenderedChart chart = Chart.render(Map.of("node.transparent.enabled", "false"));
    PodSpec pod = pod(chart);

    assertThat(pod.getHostPID()).isNull();
    assertThat(pod.getInitContainers()).isEmpty();
    assertThat(pod.getVolumes()).extracting(Volume::getName).doesNotContain("mps-shm");
    assertThat(pod.getContainers().getFirst().getVolumeMounts())
        .noneMatch(m -> m.getMountPath().equals("/dev/shm"));
    assertThat(config(chart, "default").get("transparent").toString()).contains("enabled=false");
  }

  @Test
  void inAgentConfigsLeaveTransparentToTheNodesDefaultWhichIsOff() {
    // The node side turns transparent slices off by itself in runMode in-agent; the chart does
    // not force them on there (the node would refuse to start).
    Map<String, Object> config = config(Chart.render("in-agent.yaml"), "default");
    assertThat(config).containsEntry("runMode", "in-agent");
    assertThat(config.get("transparent").toString()).doesNotContain("enabled");
  }

  private static String hostPath(PodSpec pod, String volume) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(volume))
        .findFirst()
        .orElseThrow()
        .getHostPath()
        .getPath();
  }
}
