package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** allocation.mode dra: what it adds to the chart, and that devicePlugin (the default) has none. */
class DraChartTest {
  private static final String NODE_SA = "system:serviceaccount:smslice-system:smslice-node";
  private static final String NODE_NAME_KEY = "authentication.kubernetes.io/node-name";
  private static RenderedChart dra;
  private static RenderedChart plugin;

  @BeforeAll
  static void render() {
    dra = Chart.renderDra(Map.of());
    plugin = Chart.render();
  }

  @Test
  void theDeviceClassSelectsSmslicesDevicesInDraModeOnly() {
    List<GenericKubernetesResource> classes = dra.generic("resource.k8s.io/v1", "DeviceClass");
    assertThat(classes).hasSize(1);
    GenericKubernetesResource c = classes.getFirst();
    assertThat(c.getMetadata().getName()).isEqualTo("sm.smslice.io");
    assertThat(Serialization.asJson(c.getAdditionalProperties().get("spec")))
        .isEqualTo(
            "{\"selectors\":[{\"cel\":{\"expression\":\"device.driver == \\\"smslice.io\\\"\"}}]}");
    assertThat(plugin.generic("resource.k8s.io/v1", "DeviceClass")).isEmpty();
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyNodeConfigSaysDraAndNamesTheDraPaths() {
    ConfigMap configs = dra.named(ConfigMap.class, "smslice-node-config");
    assertThat(configs.getData()).containsKeys("default.yaml", "a100-mig.yaml");
    for (String yaml : configs.getData().values()) {
      Map<String, Object> config = Serialization.unmarshal(yaml, Map.class);
      assertThat(config).containsEntry("allocation", "dra");
      assertThat((Map<String, Object>) config.get("paths"))
          .containsEntry("kubeletPlugins", "/var/lib/kubelet/plugins")
          .containsEntry("pluginsRegistry", "/var/lib/kubelet/plugins_registry")
          .containsEntry("cdi", "/var/run/cdi");
    }
    for (String yaml : plugin.named(ConfigMap.class, "smslice-node-config").getData().values()) {
      Map<String, Object> config = Serialization.unmarshal(yaml, Map.class);
      assertThat(config).doesNotContainKey("allocation").doesNotContainKey("paths");
    }
  }

  @Test
  void theNodeMountsTheKubeletPluginDirectoriesAndTheCdiDirectory() {
    var pod = dra.named(DaemonSet.class, "smslice-node").getSpec().getTemplate().getSpec();
    Container node = pod.getContainers().getFirst();
    Map<String, String> mounts =
        node.getVolumeMounts().stream()
            .collect(
                java.util.stream.Collectors.toMap(VolumeMount::getName, VolumeMount::getMountPath));
    assertThat(mounts)
        .containsEntry("kubelet-plugins", "/var/lib/kubelet/plugins")
        .containsEntry("plugins-registry", "/var/lib/kubelet/plugins_registry")
        .containsEntry("cdi", "/var/run/cdi");
    Map<String, Volume> volumes =
        pod.getVolumes().stream()
            .collect(java.util.stream.Collectors.toMap(Volume::getName, v -> v));
    // Mounted at the host's own paths (the kubelet and the runtime read host paths).
    assertThat(volumes.get("kubelet-plugins").getHostPath().getPath())
        .isEqualTo("/var/lib/kubelet/plugins");
    assertThat(volumes.get("plugins-registry").getHostPath().getType()).isEqualTo("Directory");
    assertThat(volumes.get("cdi").getHostPath().getPath()).isEqualTo("/var/run/cdi");

    var pluginPod = plugin.named(DaemonSet.class, "smslice-node").getSpec().getTemplate().getSpec();
    assertThat(pluginPod.getVolumes())
        .extracting(Volume::getName)
        .doesNotContain("kubelet-plugins", "plugins-registry", "cdi");
  }

  @Test
  void theHostPathsCanBeMoved() {
    RenderedChart moved =
        Chart.renderDra(
            Map.of(
                "node.hostPaths.cdi", "/etc/cdi", "node.hostPaths.kubeletPlugins", "/k/plugins"));
    var pod = moved.named(DaemonSet.class, "smslice-node").getSpec().getTemplate().getSpec();
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals("cdi"))
        .singleElement()
        .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/etc/cdi"));
    assertThat(moved.named(ConfigMap.class, "smslice-node-config").getData().get("default.yaml"))
        .contains("cdi: /etc/cdi")
        .contains("kubeletPlugins: /k/plugins");
  }

  @Test
  void theOperatorIsToldTheMode() {
    assertThat(env(dra)).containsEntry("SMSLICE_ALLOCATION", "dra");
    assertThat(env(plugin)).containsEntry("SMSLICE_ALLOCATION", "devicePlugin");
  }

  private static Map<String, String> env(RenderedChart chart) {
    return chart
        .named(Deployment.class, "smslice-operator")
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .getFirst()
        .getEnv()
        .stream()
        .filter(e -> e.getValue() != null)
        .collect(java.util.stream.Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  private static Map<String, Object> slice(String node, String driver) {
    return Map.of("spec", Map.of("nodeName", node, "driver", driver));
  }

  private static Map<String, Object> request(String user, String node, String operation) {
    return Map.of(
        "userInfo",
        Map.of("username", user, "extra", Map.of(NODE_NAME_KEY, List.of(node))),
        "name",
        "gpu-1-smslice.io",
        "operation",
        operation);
  }

  @Test
  void theNodeWritesOnlyItsOwnNodesResourceSlices() {
    ValidatingAdmissionPolicy policy =
        dra.named(ValidatingAdmissionPolicy.class, "smslice-node-own-resourceslice");
    String admitted = "allowed";

    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy, request(NODE_SA, "gpu-1", "CREATE"), slice("gpu-1", "smslice.io"), null))
        .isEqualTo(admitted);
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy,
                request(NODE_SA, "gpu-1", "UPDATE"),
                slice("gpu-1", "smslice.io"),
                slice("gpu-1", "smslice.io")))
        .isEqualTo(admitted);
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy, request(NODE_SA, "gpu-1", "CREATE"), slice("gpu-2", "smslice.io"), null))
        .isEqualTo(
            "the smslice node on gpu-1 may write only ResourceSlices of driver smslice.io with"
                + " spec.nodeName gpu-1");
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy, request(NODE_SA, "gpu-1", "DELETE"), null, slice("gpu-2", "smslice.io")))
        .startsWith("the smslice node on gpu-1 may write only");
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy,
                request(NODE_SA, "gpu-1", "CREATE"),
                slice("gpu-1", "gpu.nvidia.com"),
                null))
        .startsWith("the smslice node on gpu-1 may write only");
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy,
                request(NODE_SA, "gpu-1", "UPDATE"),
                slice("gpu-1", "smslice.io"),
                slice("gpu-2", "smslice.io")))
        .startsWith("the smslice node on gpu-1 may write only");
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy,
                request("system:serviceaccount:other:driver", "gpu-1", "CREATE"),
                slice("gpu-2", "x"),
                null))
        .isEqualTo("not matched");

    // A user with no extra at all (the API server then has no userInfo.extra): denied, saying why.
    assertThat(
            NodeSliceNodePolicyTest.admit(
                policy,
                Map.of("userInfo", Map.of("username", NODE_SA), "name", "x", "operation", "CREATE"),
                slice("gpu-1", "smslice.io"),
                null))
        .contains("names no node");

    assertThat(policy.getSpec().getMatchConstraints().getResourceRules().getFirst().getOperations())
        .containsExactlyInAnyOrder("CREATE", "UPDATE", "DELETE");
    assertThat(
            dra.named(ValidatingAdmissionPolicyBinding.class, "smslice-node-own-resourceslice")
                .getSpec()
                .getValidationActions())
        .containsExactly("Deny");
    assertThat(plugin.all(ValidatingAdmissionPolicy.class))
        .extracting(p -> p.getMetadata().getName())
        .doesNotContain("smslice-node-own-resourceslice");
  }
}
