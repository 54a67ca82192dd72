package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** templates/validate.yaml: a bad install stops before it reaches the cluster, saying why. */
class ValidationTest {

  static Stream<Arguments> badValues() {
    return Stream.of(
        bad(
            "certManager.enabled and an own certificate at once",
            "choose one source for the webhook certificate",
            "certManager.enabled",
            "true",
            "webhook.certificate.existingSecret",
            "mine"),
        bad(
            "no certificate source at all",
            "the webhook has no certificate",
            "certManager.enabled",
            "false"),
        bad(
            "own Secret without its CA",
            "the webhook has no certificate",
            "certManager.enabled",
            "false",
            "webhook.certificate.existingSecret",
            "mine"),
        bad(
            "generate together with an own Secret",
            "set webhook.certificate.generate=false to use your own certificate",
            "certManager.enabled",
            "false",
            "webhook.certificate.generate",
            "true",
            "webhook.certificate.existingSecret",
            "mine"),
        bad(
            "runMode neither worker nor in-agent",
            "node.configs.default.runMode must be worker or in-agent, got \"threads\"",
            "node.configDefaults.runMode",
            "threads"),
        bad(
            "unknown GPU mode",
            "node.configs.default.gpus.defaultMode must be one of green, mig, mps, off; got \"vgpu\"",
            "node.configs.default.gpus.defaultMode",
            "vgpu"),
        bad(
            "unknown backend",
            "node.configs.default.backend must be auto, cuda or simulated, got \"opencl\"",
            "node.configs.default.backend",
            "opencl"),
        bad(
            "unknown config file version",
            "node.configs.default.version must be v1, got \"v2\"",
            "node.configDefaults.version",
            "v2"),
        bad(
            "override with a bad mode",
            "node.configs.default.gpus.overrides[0].mode must be one of green, mig, mps, off; got \"fast\"",
            "node.configs.default.gpus.overrides[0].match",
            "0",
            "node.configs.default.gpus.overrides[0].mode",
            "fast"),
        bad(
            "override that matches no GPU form",
            "overrides[0].match must be a GPU index (0, 1, ...) or a GPU UUID (GPU-...), got \"first\"",
            "node.configs.default.gpus.overrides[0].match",
            "first",
            "node.configs.default.gpus.overrides[0].mode",
            "mig"),
        bad(
            "the same GPU overridden twice",
            "node.configs.default.gpus.overrides: GPU 1 is matched twice",
            "node.configs.default.gpus.overrides[0].match",
            "1",
            "node.configs.default.gpus.overrides[0].mode",
            "mig",
            "node.configs.default.gpus.overrides[1].match",
            "1",
            "node.configs.default.gpus.overrides[1].mode",
            "off"),
        bad(
            "a resource name the operator does not request",
            "node.configs.default.resourceNames.sm is \"example.com/sm\", but the operator requests smslice.io/sm",
            "node.configDefaults.resourceNames.sm",
            "example.com/sm"),
        bad(
            "a config name that cannot be a label value",
            "node.configs.Big_GPUs: a config name must be lower-case letters",
            "node.configs.Big_GPUs.backend",
            "cuda"),
        bad(
            "no default config",
            "node.configs has no \"default\" entry",
            "node.configs.default",
            "null"),
        bad(
            "a failure policy the API server does not know",
            "webhook.failurePolicy must be Fail or Ignore, got \"Retry\"",
            "webhook.failurePolicy",
            "Retry"),
        bad(
            "a webhook timeout of zero",
            "webhook.timeoutSeconds must be 1 to 30",
            "webhook.timeoutSeconds",
            "0"),
        bad(
            "a webhook timeout over the API server's limit",
            "webhook.timeoutSeconds must be at most 30",
            "webhook.timeoutSeconds",
            "45"),
        bad(
            "webhook and metrics on one port",
            "webhook.port and operator.metricsPort are both 8080",
            "webhook.port",
            "8080"),
        bad(
            "a hostIPC value that is not auto/true/false",
            "node.hostIPC must be auto, true or false, got \"sometimes\"",
            "node.hostIPC",
            "sometimes"),
        bad(
            "an MPS tmpfs size tmpfs cannot take",
            "node.transparent.shmSize must be a whole number of Ki, Mi, Gi or Ti such as 1Gi, got \"1.5G\"",
            "node.transparent.shmSize",
            "1.5G"),
        bad(
            "an allocation mode the chart does not know",
            "allocation.mode must be devicePlugin or dra, got \"DRA\"",
            "allocation.mode",
            "DRA"),
        bad(
            "DRA on a cluster without resource.k8s.io/v1",
            "allocation.mode dra needs Kubernetes 1.34 or later (resource.k8s.io/v1); this cluster"
                + " is v1.33.0",
            "allocation.mode",
            "dra"),
        bad(
            "a migMonitor value that is not auto/true/false",
            "node.migMonitor must be auto, true or false, got \"yes\"",
            "node.migMonitor",
            "yes"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badValues")
  void badValuesFailWithAMessageThatNamesTheValue(
      String why, String message, Map<String, Object> values) {
    assertThatThrownBy(() -> Chart.template(values))
        .as(why)
        .hasMessageContaining("smslice: ")
        .hasMessageContaining(message);
  }

  private static Arguments bad(String why, String message, String... pairs) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      values.put(pairs[i], pairs[i + 1]);
    }
    return Arguments.of(why, message, values);
  }
}
