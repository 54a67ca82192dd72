package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** ServiceMonitors and the Grafana dashboard, checked against what the code exports. */
class MonitoringTest {
  private static final Pattern DASHBOARD_METRIC = Pattern.compile("\\b(smslice_[a-z_]+)");
  // Prometheus text written by hand (node side) and Micrometer meter names (operator).
  private static final Pattern TEXT_METRIC = Pattern.compile("\"(smslice_[a-z_]+)\"");
  private static final Pattern MICROMETER_METER = Pattern.compile("\"(smslice(\\.[a-z_]+)+)\"");

  @Test
  void serviceMonitorsScrapeBothComponentsThroughTheirServices() {
    RenderedChart chart = Chart.render("monitoring.yaml");

    var monitors = chart.generic("monitoring.coreos.com/v1", "ServiceMonitor");
    assertThat(monitors).hasSize(2);
    assertScrapes(chart, monitors, "smslice-operator", "smslice-operator", "/q/metrics");
    assertScrapes(chart, monitors, "smslice-node", "smslice-node-metrics", "/metrics");
  }

  @Test
  void dashboardIsLabelledForTheGrafanaSidecar() throws IOException {
    ConfigMap dashboard = Chart.render().named(ConfigMap.class, "smslice-grafana-dashboard");

    assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    JsonNode json = new ObjectMapper().readTree(dashboard.getData().get("smslice-claims.json"));
    assertThat(json.path("uid").asText()).isEqualTo("smslice-claims");
    assertThat(json.path("panels")).isNotEmpty();
  }

  @Test
  void dashboardUsesOnlyMetricsTheCodeExports() throws IOException {
    String dashboard = Files.readString(Chart.dir().resolve("dashboards/smslice-claims.json"));
    Set<String> used = new TreeSet<>();
    Matcher m = DASHBOARD_METRIC.matcher(dashboard);
    while (m.find()) {
      used.add(m.group(1).replaceAll("_(bucket|sum|count)$", ""));
    }
    Set<String> exported = exportedMetrics();

    assertThat(used).isNotEmpty();
    assertThat(exported)
        .as("metrics found in operator/ and device-plugin/ sources")
        .containsAll(used);
  }

  private static void assertScrapes(
      RenderedChart chart,
      java.util.List<GenericKubernetesResource> monitors,
      String monitorName,
      String serviceName,
      String path) {
    GenericKubernetesResource monitor =
        monitors.stream()
            .filter(s -> s.getMetadata().getName().equals(monitorName))
            .findFirst()
            .orElseThrow();
    Service service = chart.named(Service.class, serviceName);
    Map<String, Object> spec = spec(monitor);
    @SuppressWarnings("unchecked")
    Map<String, String> selector =
        (Map<String, String>) ((Map<String, Object>) spec.get("selector")).get("matchLabels");
    @SuppressWarnings("unchecked")
    Map<String, Object> endpoint =
        ((java.util.List<Map<String, Object>>) spec.get("endpoints")).getFirst();

    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(selector);
    assertThat(service.getSpec().getPorts())
        .extracting(ServicePort::getName)
        .contains((String) endpoint.get("port"));
    assertThat(endpoint).containsEntry("path", path).containsEntry("interval", "15s");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource resource) {
    return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
  }

  private static Set<String> exportedMetrics() throws IOException {
    Set<String> names = new TreeSet<>();
    for (Path source : javaSources()) {
      String text = Files.readString(source);
      Matcher text1 = TEXT_METRIC.matcher(text);
      while (text1.find()) {
        names.add(text1.group(1));
      }
      Matcher meter = MICROMETER_METER.matcher(text);
      while (meter.find()) {
        String name = meter.group(1).replace('.', '_');
        names.add(name);
        names.add(name + "_seconds"); // Micrometer timers are exported in seconds
      }
    }
    return names;
  }

  private static java.util.List<Path> javaSources() throws IOException {
    java.util.List<Path> sources = new java.util.ArrayList<>();
    for (String root : new String[] {"operator/src/main/java", "device-plugin"}) {
      Path dir = Chart.repoDir().resolve(root);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files
            .filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/"))
            .forEach(sources::add);
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }
    return sources;
  }
}
