package io.smslice.api.v1alpha1.validation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The SliceNode CRD accepts what a node agent reports and rejects inconsistent reports. */
class SliceNodeValidationTest {
  private static OfflineCrdValidator validator;

  @BeforeAll
  static void loadCrd() throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("slicenodes.smslice.io-v1.yml"))) {
      validator =
          new OfflineCrdValidator(Serialization.unmarshal(in, CustomResourceDefinition.class));
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          '[{id: 0, sms: 8}, {id: 1, sms: 8}, {id: 2, sms: 12}]' | Green | 28 |
          '[{id: 0, sms: 8}, {id: 0, sms: 8}]'                   | Green | 16 | smGroups ids must be unique
          '[{id: 0, sms: 0}]'                                    | Green | 8  | should be greater than or equal to 1
          '[]'                                                   | Blue  | 8  | Unsupported value: "Blue"
          '[]'                                                   | Off   | 0  | should be greater than or equal to 1
          """)
  void checksReportedGpus(String groups, String mode, int sms, String expected) throws IOException {
    String node =
        """
        apiVersion: smslice.io/v1alpha1
        kind: SliceNode
        metadata: {name: gpu-node-1}
        status:
          agentVersion: 0.1.0
          backend: simulated
          heartbeat: "2026-11-30T10:00:00Z"
          gpus:
          - {index: 0, uuid: GPU-1, mode: %s, smCount: %d, memory: 141Gi, smGroups: %s}
        """
            .formatted(mode, sms, groups);
    JsonNode object = new ObjectMapper(new YAMLFactory()).readTree(node);
    if (expected == null) {
      assertThat(validator.validateCreate(object)).isEmpty();
    } else {
      assertThat(validator.validateCreate(object)).anyMatch(e -> e.contains(expected));
    }
  }
}
