package io.smslice.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionSpec;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimTemplate;
import io.smslice.api.v1alpha1.node.SliceNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** The CRD YAML files generated from the API types, and their checked-in copies under crds/. */
final class GeneratedCrds {
  static final List<String> FILES =
      List.of(
          "sliceclaims.smslice.io-v1.yml",
          "sliceclaimtemplates.smslice.io-v1.yml",
          "slicenodes.smslice.io-v1.yml");

  /** The module directory: surefire runs tests there. */
  static final Path CHECKED_IN = Path.of("").toAbsolutePath();

  private GeneratedCrds() {}

  /** Generates the CRDs from the types into a fresh directory. */
  static Path generate() {
    try {
      Path dir = Files.createTempDirectory("smslice-crds");
      new CRDGenerator()
          .inOutputDir(dir.toFile())
          .forCRDVersions("v1")
          .customResourceClasses(SliceClaim.class, SliceClaimTemplate.class, SliceNode.class)
          .withPostProcessor(
              new CRDPostProcessor() {
                @Override
                public HasMetadata process(HasMetadata crd, String crdVersion) {
                  return conditionsKeyedByType(withoutEmptySpec(columnsInDeclaredOrder(crd)));
                }
              })
          .generate();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** kubectl shows printer columns in list order; the generator sorts them by name. */
  private static HasMetadata columnsInDeclaredOrder(HasMetadata crd) {
    CustomResourceDefinitionSpec spec = ((CustomResourceDefinition) crd).getSpec();
    Class<?> type =
        switch (spec.getNames().getKind()) {
          case "SliceClaim" -> SliceClaim.class;
          case "SliceClaimTemplate" -> SliceClaimTemplate.class;
          default -> SliceNode.class;
        };
    List<String> declared =
        Arrays.stream(type.getAnnotationsByType(AdditionalPrinterColumn.class))
            .map(AdditionalPrinterColumn::name)
            .toList();
    for (var version : spec.getVersions()) {
      version
          .getAdditionalPrinterColumns()
          .sort(Comparator.comparingInt(column -> declared.indexOf(column.getName())));
    }
    return crd;
  }

  /**
   * A list of conditions holds one per type, and is merged by type (as metav1.Condition lists are):
   * x-kubernetes-list-type map with key type. The generator has no annotation for it.
   */
  private static HasMetadata conditionsKeyedByType(HasMetadata crd) {
    for (var version : ((CustomResourceDefinition) crd).getSpec().getVersions()) {
      keyConditions(version.getSchema().getOpenAPIV3Schema());
    }
    return crd;
  }

  private static void keyConditions(JSONSchemaProps schema) {
    if (schema == null) {
      return;
    }
    if (schema.getProperties() != null) {
      schema
          .getProperties()
          .forEach(
              (name, property) -> {
                var items = property.getItems() == null ? null : property.getItems().getSchema();
                if (name.equals("conditions")
                    && items != null
                    && items.getProperties() != null
                    && items.getProperties().containsKey("type")) {
                  property.setXKubernetesListType("map");
                  property.setXKubernetesListMapKeys(List.of("type"));
                }
                keyConditions(property);
              });
    }
    if (schema.getItems() != null) {
      keyConditions(schema.getItems().getSchema());
    }
  }

  /**
   * A SliceNode carries only status, a SliceClaimTemplate only spec: a Void one would otherwise
   * appear as an empty object.
   */
  private static HasMetadata withoutEmptySpec(HasMetadata crd) {
    for (var version : ((CustomResourceDefinition) crd).getSpec().getVersions()) {
      var properties = version.getSchema().getOpenAPIV3Schema().getProperties();
      if (properties.get("spec").getProperties().isEmpty()) {
        properties.remove("spec");
      }
      var status = properties.get("status");
      if (status != null && (status.getProperties() == null || status.getProperties().isEmpty())) {
        properties.remove("status"); // a SliceClaimTemplate has none
      }
    }
    return crd;
  }

  static String read(Path dir, String file) {
    try {
      return Files.readString(dir.resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
