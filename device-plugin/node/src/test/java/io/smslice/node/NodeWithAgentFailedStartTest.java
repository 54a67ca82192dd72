package io.smslice.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.node.config.NodeConfig;
import io.smslice.node.testing.NodeFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A NodeWithAgent whose node side or DRA plugin cannot start stops what it had started: the guard's
 * pressure sampler, the agent (its dead-owner sweep) and the node side's own parts (GPU health,
 * SliceNode and label publishing, the claim watch, client-fault recovery) leave no thread behind,
 * whether the node side itself failed part-way (its device plugins) or a part after it did.
 */
@EnableKubernetesMockClient(crud = true)
class NodeWithAgentFailedStartTest {
  private static final Set<String> STARTED_BEFORE =
      Set.of(
          "guard-pressure",
          "guard-sweep",
          "gpu-health-poll",
          "gpu-xid-events",
          "slicenode-publisher",
          "node-labels",
          "claim-state-watch",
          "mps-fault-recovery");

  KubernetesClient client;
  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}: {1} is a file")
  @CsvSource({"devicePlugin, device-plugins", "dra, plugins"})
  void whatStartedBeforeTheFailureStops(String allocation, String blocked) throws Exception {
    NodeFixture.installCrds(client);
    NodeFixture fixture = new NodeFixture(tmp, allocation);
    NodeConfig config = fixture.transparentConfig(Map.of("onlyUnderPressure", true));
    // A file where the plugins' sockets go: the device plugins' or the DRA plugin's start fails.
    Files.writeString(tmp.resolve(blocked), "");
    Set<Thread> before = Thread.getAllStackTraces().keySet();

    assertThatThrownBy(
            () ->
                NodeWithAgent.start(
                    config, NodeFixture.NODE, client, fixture.inventory, fixture.nvml))
        .isInstanceOf(IOException.class);

    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    Set<String> left = leftRunning(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      left = leftRunning(before);
    }
    assertThat(left).isEmpty();
  }

  private static Set<String> leftRunning(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive() && STARTED_BEFORE.contains(t.getName()))
        .map(Thread::getName)
        .collect(Collectors.toSet());
  }
}
