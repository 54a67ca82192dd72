package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What `helm install smslice charts/smslice` creates with no values given. */
class DefaultInstallTest {
  private static RenderedChart chart;

  @BeforeAll
  static void render() {
    chart = Chart.render();
  }

  @Test
  void operatorRunsTheAppVersionImageWithWebhookAndMetricsPorts() throws Exception {
    Deployment deployment = chart.named(Deployment.class, "smslice-operator");
    Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();

    assertThat(operator.getImage()).isEqualTo("ghcr.io/smslice/smslice-operator:" + appVersion());
    assertThat(operator.getPorts())
        .extracting(p -> p.getName() + "=" + p.getContainerPort())
        .containsExactlyInAnyOrder("http=8080", "webhook=8443");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
    assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot())
        .isTrue();
  }

  @Test
  void operatorReplicasElectALeaderThroughALeaseAndStayAvailable() {
    Deployment deployment = chart.named(Deployment.class, "smslice-operator");
    Role leases = chart.named(Role.class, "smslice-operator-leader-election");

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(env(deployment.getSpec().getTemplate().getSpec(), "SMSLICE_LEASE_NAME"))
        .isEqualTo("smslice-operator-leader");
    assertThat(leases.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
    // The Lease, and the per-node allocation ledgers: namespaced, nothing cluster-wide.
    assertThat(leases.getRules())
        .anySatisfy(
            rule -> {
              assertThat(rule.getApiGroups()).containsExactly("coordination.k8s.io");
              assertThat(rule.getResources()).containsExactly("leases");
            })
        .anySatisfy(
            rule -> {
              assertThat(rule.getApiGroups()).containsExactly("");
              assertThat(rule.getResources()).containsExactly("configmaps");
            })
        .hasSize(2);
    assertThat(
            chart.named(PodDisruptionBudget.class, "smslice-operator").getSpec().getMinAvailable())
        .hasFieldOrPropertyWithValue("intVal", 1);
  }

  @Test
  void operatorServiceHasTheConventionalNameAndPorts() {
    Service service = chart.named(Service.class, "smslice-operator");
    Deployment deployment = chart.named(Deployment.class, "smslice-operator");

    assertThat(service.getSpec().getPorts())
        .extracting(ServicePort::getName, ServicePort::getPort)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("webhook", 8443),
            org.assertj.core.groups.Tuple.tuple("http-metrics", 8080));
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(service.getSpec().getSelector());
  }

  @Test
  void operatorMountsTheWebhookSecretThatCertManagerIssues() {
    Deployment deployment = chart.named(Deployment.class, "smslice-operator");
    var certificate = chart.generic("cert-manager.io/v1", "Certificate");
    assertThat(chart.objects()).noneMatch(o -> o instanceof Secret);
    assertThat(certificate)
        .anySatisfy(
            c ->
                assertThat(
                        ((java.util.Map<?, ?>) c.getAdditionalProperties().get("spec"))
                            .get("secretName"))
                    .isEqualTo("smslice-webhook-tls"));
    assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes())
        .anySatisfy(
            v -> assertThat(v.getSecret().getSecretName()).isEqualTo("smslice-webhook-tls"));
  }

  @Test
  void installsNoMonitoringObjectsUnlessAsked() {
    assertThat(chart.generic("monitoring.coreos.com/v1", "ServiceMonitor")).isEmpty();
  }

  @Test
  void everyNamespacedObjectIsInTheReleaseNamespace() {
    assertThat(chart.objects())
        .filteredOn(o -> o.getMetadata().getNamespace() != null)
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE));
  }

  @Test
  void fullnameOverrideRenamesObjectsButNotTheConventionalService() {
    RenderedChart renamed = Chart.render(Map.of("fullnameOverride", "gpu-slices"));

    assertThat(renamed.find(Deployment.class, "gpu-slices-operator")).isPresent();
    assertThat(renamed.find(Service.class, "smslice-operator")).isPresent();
  }

  static String env(PodSpec pod, String name) {
    return pod.getContainers().getFirst().getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElse(null);
  }

  static String appVersion() throws Exception {
    String chartYaml = Files.readString(Chart.dir().resolve("Chart.yaml"));
    return chartYaml
        .lines()
        .filter(l -> l.startsWith("appVersion:"))
        .map(l -> l.substring("appVersion:".length()).trim().replace("\"", ""))
        .findFirst()
        .orElseThrow();
  }
}
