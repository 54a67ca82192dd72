package io.smslice.api.v1alpha1.validation;

import static io.smslice.api.v1alpha1.validation.ClaimExamples.BINDING;
import static io.smslice.api.v1alpha1.validation.ClaimExamples.bound;
import static io.smslice.api.v1alpha1.validation.ClaimExamples.claim;
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
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The checked-in SliceClaim CRD accepts what users may write and rejects the rest, clearly. */
class SliceClaimValidationTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static OfflineCrdValidator validator;

  @BeforeAll
  static void loadCrd() throws IOException {
    try (InputStream in = Files.newInputStream(Path.of("sliceclaims.smslice.io-v1.yml"))) {
      validator =
          new OfflineCrdValidator(Serialization.unmarshal(in, CustomResourceDefinition.class));
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "sms: 16",
        "sms: 1",
        "sms: 16\nmemory: 8Gi\nisolation: Compute\npriority: LatencyCritical",
        "isolation: Memory\nmemory: 18Gi",
        "isolation: Memory\nmemory: 35Gi\nsms: 26",
        "isolation: Shared\nsms: 33\nmemory: 4Gi",
        "sms: 132\npriority: BestEffort",
        "sms: 8\nmemory: 8589934592",
        "sms: 8\nmemory: 512Mi\nselector:\n  product: NVIDIA H200\n  nodeLabels:\n    zone: a",
        "sms: 24\nmemory: 1.5Gi",
        "sms: 24\nmemory: '2e9'",
        "sms: 1024\nisolation: Auto\npriority: Standard",
      })
  void acceptsValidClaims(String spec) {
    assertThat(validator.validateCreate(parse(claim(spec)))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvFileSource(resources = "/invalid-sliceclaims.psv", delimiter = '|')
  void rejectsInvalidClaimsWithAClearMessage(String spec, String expected) {
    List<String> errors = validator.validateCreate(parse(claim(spec.replace("\\n", "\n"))));
    assertThat(errors).as("errors for %s", spec).anyMatch(e -> e.contains(expected));
  }

  @Test
  void rejectsAClaimWithoutSpec() {
    String noSpec = claim("").replace("spec:\n", "");
    assertThat(validator.validateCreate(parse(noSpec))).anyMatch(e -> e.contains("spec"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("updates")
  void checksChangesToExistingClaims(String name, String old, String updated, String expected) {
    List<String> errors = validator.validateUpdate(parse(old), parse(updated));
    if (expected.isEmpty()) {
      assertThat(errors).as(name).isEmpty();
    } else {
      assertThat(errors).as(name).anyMatch(e -> e.contains(expected));
    }
  }

  static List<Object[]> updates() {
    String selected = "sms: 16\nselector:\n  product: NVIDIA H200";
    return List.of(
        new Object[] {
          "isolation cannot change",
          claim("sms: 16\nisolation: Compute"),
          claim("sms: 16\nisolation: Shared"),
          "spec.isolation cannot change"
        },
        new Object[] {
          "defaulted isolation cannot change either",
          claim("sms: 16"),
          claim("sms: 16\nisolation: Compute"),
          "spec.isolation cannot change"
        },
        new Object[] {
          "selector cannot change once bound",
          bound(selected, BINDING),
          bound("sms: 16\nselector:\n  product: NVIDIA A100", BINDING),
          "spec.selector cannot change once the claim is bound"
        },
        new Object[] {
          "selector cannot be added once bound",
          bound("sms: 16", BINDING),
          bound(selected, BINDING),
          "spec.selector cannot change once the claim is bound"
        },
        new Object[] {
          "selector may change while pending",
          claim(selected),
          claim("sms: 16\nselector:\n  product: NVIDIA A100"),
          ""
        },
        new Object[] {
          "a bound claim may be resized", bound("sms: 16", BINDING), bound("sms: 32", BINDING), ""
        },
        new Object[] {
          "a bound claim may change priority",
          bound("sms: 16", BINDING),
          bound("sms: 16\npriority: LatencyCritical", BINDING),
          ""
        },
        new Object[] {
          "an update is validated like a create",
          bound("sms: 16", BINDING),
          bound("sms: 0", BINDING),
          "should be greater than or equal to"
        });
  }

  private static JsonNode parse(String yaml) {
    try {
      return YAML.readTree(yaml);
    } catch (IOException e) {
      throw new IllegalArgumentException(yaml, e);
    }
  }
}
