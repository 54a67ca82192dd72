package io.smslice.charts;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The chart under test, rendered with the embedded Helm of helm-java (no cluster needed). */
final class Chart {
  static final String RELEASE = "smslice";
  static final String NAMESPACE = "smslice-system";

  /**
   * The cluster version rendered for (helm-java's default, 1.20, is older than the chart allows).
   */
  static final String KUBE_VERSION = "1.33.0";

  /** The cluster version DRA renders are made for (allocation.mode dra needs 1.34+). */
  static final String DRA_KUBE_VERSION = "1.36.3";

  /** Name prefix the chart gives this release's objects. */
  static final String FULLNAME = "smslice";

  /** The API server the chart's lookup calls reach (KUBECONFIG names its file; see pom.xml). */
  private static MockCluster cluster;

  static synchronized MockCluster cluster() {
    if (cluster == null) {
      cluster = new MockCluster("1", "33");
      Path kubeconfig = Path.of(System.getProperty("smslice.kubeconfig"));
      try {
        Files.createDirectories(kubeconfig.getParent());
        Files.writeString(kubeconfig, cluster.kubeconfig());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
    }
    return cluster;
  }

  static Path dir() {
    return Path.of(System.getProperty("smslice.chart.dir", "smslice")).toAbsolutePath();
  }

  static Path repoDir() {
    return Path.of(System.getProperty("smslice.repo.dir", "..")).toAbsolutePath().normalize();
  }

  static Path valuesFile(String name) {
    Path file = Path.of("src/test/resources/values", name).toAbsolutePath();
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("no test values file " + file);
    }
    return file;
  }

  /** Renders with the chart's defaults, then the given values files, then the --set pairs. */
  static RenderedChart render(Map<String, Object> sets, String... valuesFiles) {
    return RenderedChart.parse(template(sets, valuesFiles));
  }

  static RenderedChart render(String... valuesFiles) {
    return render(Map.of(), valuesFiles);
  }

  /** Rendered with allocation.mode dra (values/dra.yaml) for a Kubernetes 1.36 cluster. */
  static RenderedChart renderDra(Map<String, Object> sets) {
    return RenderedChart.parse(templateAt(DRA_KUBE_VERSION, sets, "dra.yaml"));
  }

  /** The raw `helm template` output; Helm's error (for example a validate.yaml fail) is thrown. */
  static String template(Map<String, Object> sets, String... valuesFiles) {
    return templateAt(KUBE_VERSION, sets, valuesFiles);
  }

  static String templateAt(String kubeVersion, Map<String, Object> sets, String... valuesFiles) {
    cluster();
    TemplateCommand command =
        new Helm(dir())
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(kubeVersion);
    for (String file : valuesFiles) {
      command = command.withValuesFile(valuesFile(file));
    }
    for (Map.Entry<String, Object> set : sets.entrySet()) {
      command = command.set(set.getKey(), set.getValue());
    }
    return command.call();
  }

  private Chart() {}
}
