package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.node.SliceNode;
import io.smslice.node.testing.FakeKubelet;
import io.smslice.node.testing.NodeFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NodeMain as its own process, against a mock API server and a fake kubelet. */
@EnableKubernetesMockClient(crud = true, https = false)
class NodeMainTest {
  KubernetesClient client;
  @TempDir Path tmp;

  private Process nodeMain(Path configDir, String nodeName) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED",
            "-cp",
            System.getProperty("java.class.path"),
            NodeMain.class.getName(),
            "--node-name=" + nodeName,
            "--config-dir=" + configDir);
    pb.environment().put("KUBERNETES_MASTER", client.getMasterUrl().toString());
    pb.environment().put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    pb.environment().put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    pb.environment().put("KUBERNETES_NAMESPACE", "default");
    pb.redirectErrorStream(true);
    pb.redirectOutput(tmp.resolve("node-" + nodeName + ".log").toFile());
    return pb.start();
  }

  private String log(String nodeName) throws IOException {
    return Files.readString(tmp.resolve("node-" + nodeName + ".log"));
  }

  @Test
  void theNodeLabelPicksTheConfigAndTheNodeRegistersAndPublishes() throws Exception {
    NodeFixture.installCrds(client);
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .addToLabels(SmsliceApi.NODE_CONFIG_LABEL, "lab")
                .endMetadata()
                .build())
        .create();
    Path configDir = Files.createDirectories(tmp.resolve("config"));
    Path plugins = tmp.resolve("device-plugins");
    Files.writeString(
        configDir.resolve("lab.yaml"),
        """
        version: v1
        backend: simulated
        runMode: in-agent
        resourceNames: {sm: lab.example.com/sm, mig: lab.example.com/mig, mps: lab.example.com/mps}
        heartbeatSeconds: 1
        metricsPort: 0
        paths: {devicePlugins: %s, run: %s, state: %s, dev: %s, proc: %s}
        """
            .formatted(
                plugins,
                tmp.resolve("run"),
                tmp.resolve("state"),
                tmp.resolve("dev"),
                tmp.resolve("proc")));
    Files.writeString(configDir.resolve("default.yaml"), "version: v1\nbackend: cuda\n");

    try (FakeKubelet kubelet = new FakeKubelet(plugins)) {
      Instant started = Instant.now();
      Process node = nodeMain(configDir, "n1");
      try {
        kubelet.awaitPlugin("lab.example.com/sm", started, Duration.ofSeconds(60));
        assertThat(kubelet.awaitDevices("lab.example.com/sm", d -> true, Duration.ofSeconds(5)))
            .hasSize(132);
        SliceNode published = awaitSliceNode("n1");
        assertThat(published.getStatus().getBackend()).isEqualTo("simulated");
        assertThat(published.getStatus().getGpus())
            .singleElement()
            .satisfies(g -> assertThat(g.getSmGroups()).hasSize(16));
        assertThat(log("n1")).contains("configuration from " + configDir.resolve("lab.yaml"));
      } finally {
        node.destroy(); // SIGTERM: the shutdown hook stops plugins, agent and daemons
        assertThat(node.waitFor(20, TimeUnit.SECONDS)).isTrue();
        System.out.println(log("n1")); // kept in the surefire report, for diagnosis
      }
      assertThat(Files.exists(plugins.resolve("smslice-sm.sock")))
          .as("socket removed on stop")
          .isFalse();
    }
  }

  @Test
  void aBadConfigStopsTheNodeWithExitStatus2AndSaysWhatToFix() throws Exception {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n2")
                .addToLabels(SmsliceApi.NODE_CONFIG_LABEL, "missing")
                .endMetadata()
                .build())
        .create();
    Path configDir = Files.createDirectories(tmp.resolve("config2"));
    Process node = nodeMain(configDir, "n2");
    assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(node.exitValue()).isEqualTo(2);
    assertThat(log("n2"))
        .contains("smslice node: cannot start: config 'missing' was asked for")
        .contains("add the key missing.yaml to the smslice node ConfigMap");
  }

  private SliceNode awaitSliceNode(String name) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    while (Instant.now().isBefore(deadline)) {
      SliceNode sn = client.resources(SliceNode.class).withName(name).get();
      if (sn != null && sn.getStatus() != null && sn.getStatus().getHeartbeat() != null) {
        return sn;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no SliceNode " + name + " within 20 s");
  }
}
