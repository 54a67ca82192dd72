package io.smslice.api.v1alpha1.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A claim template must fix the pod's resource: isolation Compute or Memory, a valid claim spec.
 */
class SliceClaimTemplateValidationTest {
  private static OfflineCrdValidator validator;

  @BeforeAll
  static void loadCrd() throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("sliceclaimtemplates.smslice.io-v1.yml"))) {
      validator =
          new OfflineCrdValidator(Serialization.unmarshal(in, CustomResourceDefinition.class));
    }
  }

  private static java.util.List<String> errors(String spec) throws IOException {
    String yaml =
        """
        apiVersion: smslice.io/v1alpha1
        kind: SliceClaimTemplate
        metadata: {name: t, namespace: ns}
        spec:
          spec:
        """
            + spec.indent(4);
    return validator.validateCreate(new ObjectMapper(new YAMLFactory()).readTree(yaml));
  }

  @Test
  void acceptsComputeAndMemoryTemplates() throws IOException {
    assertThat(errors("sms: 16\nisolation: Compute")).isEmpty();
    assertThat(errors("isolation: Memory\nmemory: 18Gi")).isEmpty();
  }

  @Test
  void rejectsTemplatesWhoseIsolationLeavesThePodsResourceOpen() throws IOException {
    assertThat(errors("sms: 16")).anyMatch(e -> e.contains("must be Compute or Memory"));
    assertThat(errors("sms: 16\nisolation: Shared"))
        .anyMatch(e -> e.contains("must be Compute or Memory"));
    assertThat(errors("isolation: Compute")).anyMatch(e -> e.contains("spec.sms is required"));
  }
}
