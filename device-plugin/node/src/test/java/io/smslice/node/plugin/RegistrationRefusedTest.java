package io.smslice.node.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.node.config.ConfigException;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.testing.FakeKubelet;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A registration the kubelet refuses for good (an invalid resource name, an unsupported API
 * version) is not retried forever: at start it fails like a bad configuration (NodeMain exits with
 * status 2), and later it is reported to the lifecycle's listener.
 */
class RegistrationRefusedTest {
  private static final String NAME = "lab.example.com/sm";

  @TempDir Path tmp;

  private static ResourceManager resource(String name) {
    return new ResourceManager() {
      @Override
      public String resourceName() {
        return name;
      }

      @Override
      public String socketName() {
        return "test-" + name.replaceAll("[^a-z]", "") + ".sock";
      }

      @Override
      public List<Device> devices() {
        return List.of(Device.newBuilder().setID("d0").setHealth("Healthy").build());
      }

      @Override
      public void addListener(Runnable listener) {}

      @Override
      public List<String> preferred(List<String> available, List<String> mustInclude, int size) {
        return available.subList(0, size);
      }

      @Override
      public List<ContainerAllocateResponse> allocate(List<List<String>> containers) {
        return containers.stream()
            .map(c -> ContainerAllocateResponse.getDefaultInstance())
            .toList();
      }
    };
  }

  @Test
  void aRefusalAtStartFailsTheStartWithTheKubeletsReason() throws Exception {
    Path plugins = tmp.resolve("device-plugins");
    try (FakeKubelet kubelet = new FakeKubelet(plugins, List.of(NAME));
        PluginLifecycle lifecycle =
            new PluginLifecycle(
                plugins,
                List.of(resource(NAME), resource("lab.example.com/mig")),
                Duration.ofMillis(200),
                new NodeMetrics())) {
      assertThatThrownBy(lifecycle::start)
          .isInstanceOf(ConfigException.class)
          .message()
          .contains("the kubelet refused to register " + NAME)
          .contains("the ResourceName \"" + NAME + "\" is invalid")
          .contains("resourceNames");
    }
  }

  @Test
  void aRefusalAfterStartIsReportedToTheListener() throws Exception {
    Path plugins = tmp.resolve("device-plugins");
    CompletableFuture<String> reported = new CompletableFuture<>();
    try (PluginLifecycle lifecycle =
        new PluginLifecycle(
            plugins, List.of(resource(NAME)), Duration.ofMillis(200), new NodeMetrics())) {
      lifecycle.start(); // no kubelet yet: nothing to register with
      lifecycle.onPermanentRefusal(reported::complete);
      Instant up = Instant.now();
      try (FakeKubelet kubelet = new FakeKubelet(plugins, List.of(NAME))) {
        String reason = reported.get(10, TimeUnit.SECONDS);
        assertThat(reason).contains("the ResourceName \"" + NAME + "\" is invalid");
        assertThat(Duration.between(up, Instant.now())).isLessThan(Duration.ofSeconds(10));
        assertThat(lifecycle.allRegistered()).isFalse();
      }
    }
  }
}
