package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smslice.api.v1alpha1.SmsliceApi;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The MutatingWebhookConfiguration and where its serving certificate comes from. */
class WebhookTest {
  private static final String HELM_CERT = "helm-generated-certificate.yaml";

  /** Issue 12.13: GitOps tools render without a cluster; the default render must not drift. */
  @Test
  void theDefaultRenderIsTheSameEveryTime() {
    String first = Chart.template(java.util.Map.of());
    assertThat(Chart.template(java.util.Map.of())).isEqualTo(first);
    assertThat(first).doesNotContain("kind: Secret").doesNotContain("caBundle:");
  }

  @Test
  void sendsOnlyPodsThatNameAClaimToTheOperatorsMutatePath() {
    MutatingWebhook webhook = webhook(Chart.render());

    assertThat(webhook.getClientConfig().getService().getName()).isEqualTo("smslice-operator");
    assertThat(webhook.getClientConfig().getService().getNamespace()).isEqualTo(Chart.NAMESPACE);
    assertThat(webhook.getClientConfig().getService().getPath()).isEqualTo("/mutate-pods");
    assertThat(webhook.getClientConfig().getService().getPort()).isEqualTo(8443);
    assertThat(webhook.getRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getResources()).containsExactly("pods");
              assertThat(rule.getOperations()).containsExactly("CREATE");
            });
    assertThat(webhook.getMatchConditions())
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.getExpression())
                    .contains(
                        "'" + SmsliceApi.CLAIM_ANNOTATION + "' in object.metadata.annotations")
                    .startsWith("has(object.metadata.annotations)"));
    assertThat(webhook.getFailurePolicy()).isEqualTo("Fail");
    assertThat(webhook.getSideEffects()).isEqualTo("None");
  }

  @Test
  void neverSeesTheReleaseNamespaceOrSystemNamespaces() {
    MutatingWebhook webhook = webhook(Chart.render());

    LabelSelectorRequirement excluded =
        webhook.getNamespaceSelector().getMatchExpressions().getFirst();
    assertThat(excluded.getKey()).isEqualTo("kubernetes.io/metadata.name");
    assertThat(excluded.getOperator()).isEqualTo("NotIn");
    assertThat(excluded.getValues()).contains(Chart.NAMESPACE, "kube-system");
  }

  @Test
  void generatedCertificateIsSignedByTheCaBundleForTheServiceName() throws Exception {
    RenderedChart chart = Chart.render(HELM_CERT);
    Secret secret = chart.one(Secret.class);
    String caBundle = webhook(chart).getClientConfig().getCaBundle();

    assertThat(caBundle).isEqualTo(secret.getData().get("ca.crt"));
    X509Certificate ca = certificate(caBundle);
    X509Certificate serving = certificate(secret.getData().get("tls.crt"));
    serving.verify(ca.getPublicKey());
    assertThat(serving.getSubjectAlternativeNames())
        .extracting(name -> (Object) name.get(1))
        .contains((Object) "smslice-operator." + Chart.NAMESPACE + ".svc");
    assertThat(new String(Base64.getDecoder().decode(secret.getData().get("tls.key"))))
        .contains("PRIVATE KEY");
  }

  @Test
  void upgradeKeepsTheCertificateAlreadyInTheCluster() {
    Secret first = Chart.render(HELM_CERT).one(Secret.class);
    assertThat(Chart.render(HELM_CERT).one(Secret.class).getData())
        .as("a fresh install makes a new CA each time")
        .isNotEqualTo(first.getData());

    KubernetesClient client = Chart.cluster().client();
    client
        .secrets()
        .inNamespace(Chart.NAMESPACE)
        .resource(new SecretBuilder(first).build())
        .create();
    try {
      RenderedChart upgrade = Chart.render(HELM_CERT);

      assertThat(upgrade.one(Secret.class).getData()).isEqualTo(first.getData());
      assertThat(webhook(upgrade).getClientConfig().getCaBundle())
          .isEqualTo(first.getData().get("ca.crt"));
    } finally {
      client.secrets().inNamespace(Chart.NAMESPACE).withName("smslice-webhook-tls").delete();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void certManagerIssuesTheSecretAndInjectsTheCa() {
    RenderedChart chart = Chart.render("cert-manager.yaml");
    MutatingWebhookConfiguration configuration = chart.one(MutatingWebhookConfiguration.class);
    GenericKubernetesResource certificate = certificate(chart, "smslice-webhook");

    assertThat(chart.all(Secret.class)).isEmpty();
    assertThat(configuration.getWebhooks().getFirst().getClientConfig().getCaBundle()).isNull();
    assertThat(configuration.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", Chart.NAMESPACE + "/smslice-webhook");
    Map<String, Object> spec = spec(certificate);
    assertThat(spec.get("secretName")).isEqualTo(mountedSecret(chart));
    assertThat((List<Object>) spec.get("dnsNames"))
        .contains((Object) "smslice-operator." + Chart.NAMESPACE + ".svc");
    assertThat(spec.get("issuerRef")).isEqualTo(Map.of("kind", "Issuer", "name", "smslice-ca"));
    assertThat(chart.generic("cert-manager.io/v1", "Issuer"))
        .extracting(i -> i.getMetadata().getName())
        .containsExactlyInAnyOrder("smslice-selfsigned", "smslice-ca");
  }

  @Test
  void certManagerUsesTheGivenIssuerWithoutMakingOne() {
    RenderedChart chart = Chart.render("cert-manager-issuer.yaml");

    assertThat(spec(certificate(chart, "smslice-webhook")).get("issuerRef"))
        .isEqualTo(Map.of("kind", "ClusterIssuer", "name", "company-ca"));
    assertThat(chart.generic("cert-manager.io/v1", "Issuer")).isEmpty();
  }

  @Test
  void ownCertificateIsMountedAndItsCaUsed() {
    RenderedChart chart =
        Chart.render(
            Map.of(
                "certManager.enabled", "false",
                "webhook.certificate.existingSecret", "my-webhook-tls",
                "webhook.certificate.caBundle", "Q0EgUEVN"));

    assertThat(chart.all(Secret.class)).isEmpty();
    assertThat(mountedSecret(chart)).isEqualTo("my-webhook-tls");
    assertThat(webhook(chart).getClientConfig().getCaBundle()).isEqualTo("Q0EgUEVN");
  }

  static MutatingWebhook webhook(RenderedChart chart) {
    return chart.one(MutatingWebhookConfiguration.class).getWebhooks().getFirst();
  }

  private static String mountedSecret(RenderedChart chart) {
    return chart
        .named(Deployment.class, "smslice-operator")
        .getSpec()
        .getTemplate()
        .getSpec()
        .getVolumes()
        .stream()
        .filter(v -> v.getName().equals("webhook-tls"))
        .findFirst()
        .orElseThrow()
        .getSecret()
        .getSecretName();
  }

  private static GenericKubernetesResource certificate(RenderedChart chart, String name) {
    return chart.generic("cert-manager.io/v1", "Certificate").stream()
        .filter(c -> c.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource resource) {
    return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
  }

  private static X509Certificate certificate(String base64Pem) throws Exception {
    byte[] pem = Base64.getDecoder().decode(base64Pem);
    return (X509Certificate)
        CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
  }
}
