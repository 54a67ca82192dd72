package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node DaemonSet and the named node configs it reads. */
class NodeDaemonSetTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  @Test
  void runsOnGpuNodesWithTheNvidiaRuntimeAtNodeCriticalPriority() {
    PodSpec pod = pod(Chart.render());

    assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    assertThat(pod.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true");
    assertThat(pod.getTolerations())
        .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
    assertThat(env(pod, "NVIDIA_VISIBLE_DEVICES").getValue()).isEqualTo("all");
    assertThat(env(pod, "NODE_NAME").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("spec.nodeName");
    assertThat(container(pod).getImage()).startsWith("ghcr.io/smslice/smslice-node:");
    assertThat(container(pod).getPorts())
        .singleElement()
        .satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9400));
  }

  @Test
  void mountsTheKubeletPluginDirTheRunDirTheStateDirAndTheConfigs() {
    PodSpec pod = pod(Chart.render());

    assertThat(hostPath(pod, "device-plugins")).isEqualTo("/var/lib/kubelet/device-plugins");
    assertThat(hostPath(pod, "run")).isEqualTo("/run/smslice");
    assertThat(hostPath(pod, "state")).isEqualTo("/var/lib/smslice");
    assertThat(container(pod).getVolumeMounts())
        .extracting(m -> m.getName() + "=" + m.getMountPath())
        .contains(
            "device-plugins=/var/lib/kubelet/device-plugins",
            "run=/run/smslice",
            "state=/var/lib/smslice",
            "config=/etc/smslice/config");
  }

  @Test
  void hostDirectoriesAreMountedAtTheirOwnPathsAndNamedToTheNodeSide() {
    PodSpec pod =
        pod(
            Chart.render(
                Map.of(
                    "node.hostPaths.devicePlugins", "/opt/kubelet/device-plugins",
                    "node.hostPaths.run", "/var/run/smslice",
                    "node.metricsPort", "9500")));

    assertThat(hostPath(pod, "device-plugins")).isEqualTo("/opt/kubelet/device-plugins");
    assertThat(container(pod).getVolumeMounts())
        .extracting(m -> m.getName() + "=" + m.getMountPath())
        .contains("device-plugins=/opt/kubelet/device-plugins", "run=/var/run/smslice");
    assertThat(env(pod, "SMSLICE_DEVICE_PLUGIN_DIR").getValue())
        .isEqualTo("/opt/kubelet/device-plugins");
    assertThat(env(pod, "SMSLICE_RUN_DIR").getValue()).isEqualTo("/var/run/smslice");
    assertThat(env(pod, "SMSLICE_STATE_DIR").getValue()).isEqualTo("/var/lib/smslice");
    assertThat(env(pod, "SMSLICE_METRICS_PORT").getValue()).isEqualTo("9500");
    assertThat(container(pod).getPorts().getFirst().getContainerPort()).isEqualTo(9500);
  }

  @Test
  void greenModeNeedsNoPrivilegeAndNoCapability() {
    PodSpec pod = pod(Chart.render());
    var security = container(pod).getSecurityContext();

    assertThat(security.getPrivileged()).isNull();
    assertThat(security.getAllowPrivilegeEscalation()).isFalse();
    assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(security.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(env(pod, "NVIDIA_MIG_MONITOR_DEVICES")).isNull();
    assertThat(pod.getVolumes()).noneMatch(v -> v.getName().equals("nvidia-caps"));
    assertThat(pod.getHostIPC()).isNull();
  }

  @Test
  void mpsNodesShareTheHostIpcNamespaceWithTheirTenants() {
    PodSpec pod = pod(Chart.render("mps-nodes.yaml"));

    assertThat(pod.getHostIPC()).isTrue();
    assertThat(container(pod).getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(pod(Chart.render(Map.of("node.hostIPC", "false"), "mps-nodes.yaml")).getHostIPC())
        .isNull();
  }

  @Test
  void workerJvmsInheritACappedHeapAndTheContainerHasNoMemoryLimit() {
    PodSpec pod = pod(Chart.render());

    assertThat(env(pod, "JAVA_TOOL_OPTIONS").getValue()).isEqualTo("-Xmx768m");
    assertThat(container(pod).getResources().getLimits()).isNullOrEmpty();
  }

  @Test
  void defaultConfigHasTheConventionalShape() {
    Map<String, Object> config = config(Chart.render(), "default");

    assertThat(config)
        .containsEntry("version", "v1")
        .containsEntry("backend", "auto")
        .containsEntry("runMode", "worker")
        .containsEntry(
            "resourceNames",
            Map.of("sm", "smslice.io/sm", "mig", "smslice.io/mig", "mps", "smslice.io/mps"))
        .containsEntry("gpus", Map.of("defaultMode", "green", "overrides", List.of()));
  }

  @Test
  void inAgentModeReachesEveryConfig() {
    assertThat(config(Chart.render("in-agent.yaml"), "default"))
        .containsEntry("runMode", "in-agent");
  }

  @Test
  void migOnlyNodesGetTheMigMonitorCapabilityAndNothingMore() {
    RenderedChart chart = Chart.render("mig-only.yaml");
    PodSpec pod = pod(chart);

    assertThat(config(chart, "default"))
        .extractingByKey("gpus")
        .hasFieldOrPropertyWithValue("defaultMode", "mig");
    assertThat(env(pod, "NVIDIA_MIG_MONITOR_DEVICES").getValue()).isEqualTo("all");
    assertThat(container(pod).getSecurityContext().getCapabilities().getAdd())
        .containsExactly("SYS_ADMIN");
    assertThat(container(pod).getSecurityContext().getPrivileged()).isNull();
    assertThat(hostPath(pod, "nvidia-caps")).isEqualTo("/dev/nvidia-caps");
  }

  @Test
  void migMonitorCanBeTurnedOffByHand() {
    PodSpec pod = pod(Chart.render(Map.of("node.migMonitor", "false"), "mig-only.yaml"));

    assertThat(env(pod, "NVIDIA_MIG_MONITOR_DEVICES")).isNull();
    assertThat(container(pod).getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
  }

  @Test
  void eachNamedConfigIsAConfigMapKeyMergedOverTheDefaults() {
    RenderedChart chart = Chart.render("mixed-modes.yaml");

    assertThat(chart.named(ConfigMap.class, "smslice-node-config").getData())
        .containsOnlyKeys("default.yaml", "a100-mig.yaml", "shared.yaml");
    Map<String, Object> shared = config(chart, "shared");
    assertThat(shared).containsEntry("backend", "cuda").containsEntry("runMode", "worker");
    assertThat(shared.get("gpus").toString())
        .contains("defaultMode=green")
        .contains("match=1, mode=mps")
        .contains("match=GPU-5f2c1d7e-0a3b-4c1d-9e2f-000000000001, mode=off");
    // A MIG config anywhere means some node may list MIG instances.
    assertThat(env(pod(chart), "NVIDIA_MIG_MONITOR_DEVICES").getValue()).isEqualTo("all");
  }

  @Test
  void changingAConfigRollsTheNodePods() {
    String before = checksum(Chart.render());
    String after = checksum(Chart.render("in-agent.yaml"));

    assertThat(before).isNotBlank().isNotEqualTo(after);
  }

  @Test
  void privilegedOnlyWhenAsked() {
    PodSpec pod = pod(Chart.render(Map.of("node.privileged", "true")));

    assertThat(container(pod).getSecurityContext().getPrivileged()).isTrue();
  }

  @Test
  void runtimeClassAndPriorityAreConfigurable() {
    PodSpec pod =
        pod(
            Chart.render(
                Map.of("node.runtimeClassName", "", "node.priorityClassName", "gpu-high")));

    assertThat(pod.getRuntimeClassName()).isNull();
    assertThat(pod.getPriorityClassName()).isEqualTo("gpu-high");
  }

  private static String checksum(RenderedChart chart) {
    return chart
        .one(DaemonSet.class)
        .getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get("checksum/config");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> config(RenderedChart chart, String name) {
    String yaml = chart.named(ConfigMap.class, "smslice-node-config").getData().get(name + ".yaml");
    assertThat(yaml).as("config %s", name).isNotNull();
    return YAML.unmarshal(yaml, Map.class);
  }

  static PodSpec pod(RenderedChart chart) {
    return chart.named(DaemonSet.class, "smslice-node").getSpec().getTemplate().getSpec();
  }

  private static Container container(PodSpec pod) {
    return pod.getContainers().getFirst();
  }

  private static EnvVar env(PodSpec pod, String name) {
    return container(pod).getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  private static String hostPath(PodSpec pod, String volume) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(volume))
        .map(Volume::getHostPath)
        .findFirst()
        .orElseThrow()
        .getPath();
  }
}
