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
  // Prometheus text written by hand (node side: a name in quotes, or in a HELP or TYPE line) and
  // Micrometer meter names (operator).
  private static final Pattern TEXT_METRIC =
      Pattern.compile("\"(smslice_[a-z_]+)[\"{]|# (?:HELP|TYPE) (smslice_[a-z_]+) ");
  private static final Pattern MICROMETER_METER = Pattern.compile("\"(smslice(\\.[a-z_]+)+)\"");
  // Labels: written by hand as name=\" in Java source, or Micrometer tags.
  private static final Pattern TEXT_LABEL = Pattern.compile("([a-z_]+)=\\\\\"");
  private static final Pattern MICROMETER_TAG =
      Pattern.compile("\\.tag\\(\"([a-z_]+)\"|Tags\\.of\\(([^;]*)\\)");
  // Labels every scrape adds, and the histogram's bucket bound.
  private static final Set<String> PROMETHEUS_LABELS = Set.of("job", "instance", "le");

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

  @Test
  void dashboardGroupsAndFiltersOnlyByLabelsTheCodeWrites() throws IOException {
    Set<String> used = new TreeSet<>();
    for (DashboardQueries.Query q : DashboardQueries.read(dashboardFile())) {
      used.addAll(q.labels());
    }
    Set<String> written = exportedLabels();

    assertThat(used).contains("namespace", "claim", "gpu", "pid", "reason", "priority");
    assertThat(written)
        .as("labels found in operator/ and device-plugin/ sources")
        .containsAll(used);
  }

  @Test
  void everyDashboardQueryIsWellFormedPromql() throws IOException {
    var queries = DashboardQueries.read(dashboardFile());

    assertThat(queries).hasSizeGreaterThan(20);
    for (DashboardQueries.Query q : queries) {
      assertThat(DashboardQueries.problems(q.expr())).as(q.panel() + ": " + q.expr()).isEmpty();
    }
  }

  @Test
  void nodeMonitorKeepsTheClaimsNamespaceLabel() {
    RenderedChart chart = Chart.render("monitoring.yaml");
    GenericKubernetesResource node =
        chart.generic("monitoring.coreos.com/v1", "ServiceMonitor").stream()
            .filter(s -> s.getMetadata().getName().equals("smslice-node"))
            .findFirst()
            .orElseThrow();
    @SuppressWarnings("unchecked")
    Map<String, Object> endpoint =
        ((java.util.List<Map<String, Object>>) spec(node).get("endpoints")).getFirst();

    assertThat(endpoint).containsEntry("honorLabels", true);
  }

  private static Path dashboardFile() {
    return Chart.dir().resolve("dashboards/smslice-claims.json");
  }

  private static Set<String> exportedLabels() throws IOException {
    Set<String> labels = new TreeSet<>(PROMETHEUS_LABELS);
    for (Path source : javaSources()) {
      String text = Files.readString(source);
      Matcher label = TEXT_LABEL.matcher(text);
      while (label.find()) {
        labels.add(label.group(1));
      }
      Matcher tag = MICROMETER_TAG.matcher(text);
      while (tag.find()) {
        if (tag.group(1) != null) {
          labels.add(tag.group(1));
        } else {
          Matcher key = Pattern.compile("\"([a-z_]+)\"").matcher(tag.group(2));
          while (key.find()) {
            labels.add(key.group(1));
          }
        }
      }
    }
    // Target labels the chart's ServiceMonitors add (the node's: its node name).
    for (GenericKubernetesResource monitor :
        Chart.render("monitoring.yaml").generic("monitoring.coreos.com/v1", "ServiceMonitor")) {
      @SuppressWarnings("unchecked")
      var endpoints = (java.util.List<Map<String, Object>>) spec(monitor).get("endpoints");
      for (Map<String, Object> endpoint : endpoints) {
        @SuppressWarnings("unchecked")
        var relabelings =
            (java.util.List<Map<String, Object>>)
                endpoint.getOrDefault("relabelings", java.util.List.of());
        relabelings.forEach(r -> labels.add((String) r.get("targetLabel")));
      }
    }
    return labels;
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
        names.add(text1.group(1) != null ? text1.group(1) : text1.group(2));
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
