package io.smslice.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checked-in CRDs load as apiextensions.k8s.io/v1 objects with structural schemas. */
class CrdStructureTest {
  @Test
  void sliceClaimIsANamespacedCrdWithTheColumnsUsersSee() throws IOException {
    CustomResourceDefinition crd = load("sliceclaims.smslice.io-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Namespaced");
    assertThat(crd.getSpec().getNames().getShortNames()).containsExactly("slc");
    CustomResourceDefinitionVersion version = onlyServedVersion(crd);
    assertThat(version.getAdditionalPrinterColumns())
        .extracting(c -> c.getName())
        .containsExactly(
            "PHASE", "READY", "SMS", "REQUESTED", "MEMORY", "ISOLATION", "NODE", "GPU", "AGE");
    // SMS is what is bound; what was asked for is in the wide view.
    var columns = version.getAdditionalPrinterColumns();
    assertThat(columns.get(2).getJsonPath()).isEqualTo(".status.binding.sms");
    assertThat(columns.get(3).getPriority()).isEqualTo(1);
    assertThat(version.getSubresources().getStatus()).isNotNull();
    assertThat(version.getSchema().getOpenAPIV3Schema().getRequired()).contains("spec");
    JSONSchemaProps conditions =
        version
            .getSchema()
            .getOpenAPIV3Schema()
            .getProperties()
            .get("status")
            .getProperties()
            .get("conditions");
    assertThat(conditions.getXKubernetesListType()).isEqualTo("map");
    assertThat(conditions.getXKubernetesListMapKeys()).containsExactly("type");
  }

  @Test
  void sliceNodeHeartbeatIsShownAsADate() throws IOException {
    var columns =
        onlyServedVersion(load("slicenodes.smslice.io-v1.yml")).getAdditionalPrinterColumns();
    assertThat(columns)
        .filteredOn(c -> c.getName().equals("HEARTBEAT"))
        .singleElement()
        .satisfies(c -> assertThat(c.getType()).isEqualTo("date"));
  }

  @Test
  void sliceNodeIsAClusterScopedStatusOnlyCrd() throws IOException {
    CustomResourceDefinition crd = load("slicenodes.smslice.io-v1.yml");
    assertThat(crd.getSpec().getScope()).isEqualTo("Cluster");
    JSONSchemaProps schema = onlyServedVersion(crd).getSchema().getOpenAPIV3Schema();
    assertThat(schema.getProperties()).containsOnlyKeys("status");
  }

  @Test
  void schemasAreStructuralAndEveryFieldIsDescribed() throws IOException {
    for (String file : GeneratedCrds.FILES) {
      JSONSchemaProps schema = onlyServedVersion(load(file)).getSchema().getOpenAPIV3Schema();
      List<String> problems = new ArrayList<>();
      check(schema, "", problems);
      assertThat(problems).as(file).isEmpty();
    }
  }

  private static void check(JSONSchemaProps node, String path, List<String> problems) {
    boolean intOrString = Boolean.TRUE.equals(node.getXKubernetesIntOrString());
    boolean preserved = Boolean.TRUE.equals(node.getXKubernetesPreserveUnknownFields());
    if (node.getType() == null && !intOrString && !preserved) {
      problems.add(path + ": no type (a structural schema needs one)");
    }
    for (JSONSchemaProps branch : node.getAnyOf()) {
      if (branch.getDescription() != null || branch.getDefault() != null) {
        problems.add(path + ": anyOf branches may only hold value validations");
      }
    }
    node.getProperties()
        .forEach(
            (name, child) -> {
              String at = path + "." + name;
              if (child.getDescription() == null || child.getDescription().isBlank()) {
                problems.add(at + ": no description");
              }
              check(child, at, problems);
            });
    if (node.getItems() != null && node.getItems().getSchema() != null) {
      check(node.getItems().getSchema(), path + "[]", problems);
    }
    if (node.getAdditionalProperties() != null
        && node.getAdditionalProperties().getSchema() != null) {
      check(node.getAdditionalProperties().getSchema(), path + "{}", problems);
    }
  }

  private static CustomResourceDefinition load(String file) throws IOException {
    try (InputStream in = Files.newInputStream(GeneratedCrds.CHECKED_IN.resolve(file))) {
      CustomResourceDefinition crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
      assertThat(crd.getApiVersion()).isEqualTo("apiextensions.k8s.io/v1");
      assertThat(crd.getKind()).isEqualTo("CustomResourceDefinition");
      assertThat(crd.getSpec().getGroup()).isEqualTo(SmsliceApi.GROUP);
      return crd;
    }
  }

  private static CustomResourceDefinitionVersion onlyServedVersion(CustomResourceDefinition crd) {
    assertThat(crd.getSpec().getVersions())
        .singleElement()
        .satisfies(v -> assertThat(v.getName()).isEqualTo(SmsliceApi.VERSION))
        .satisfies(v -> assertThat(v.getServed()).isTrue())
        .satisfies(v -> assertThat(v.getStorage()).isTrue());
    return crd.getSpec().getVersions().get(0);
  }
}
