package io.smslice.charts;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** The objects of one `helm template` run, parsed into fabric8's Kubernetes model types. */
record RenderedChart(String yaml, List<HasMetadata> objects) {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");

  static RenderedChart parse(String yaml) {
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : DOCUMENT_SEPARATOR.split(yaml)) {
      if (document.lines().allMatch(line -> line.isBlank() || line.startsWith("#"))) {
        continue;
      }
      objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
    }
    return new RenderedChart(yaml, List.copyOf(objects));
  }

  /** All objects of a typed kind (fabric8 model class). */
  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The one object of a typed kind; fails when there are none or several. */
  <T extends HasMetadata> T one(Class<T> type) {
    List<T> found = all(type);
    if (found.size() != 1) {
      throw new AssertionError(
          "expected one " + type.getSimpleName() + ", found " + found.size() + "\n" + yaml);
    }
    return found.getFirst();
  }

  <T extends HasMetadata> T named(Class<T> type, String name) {
    return find(type, name)
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name));
  }

  <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return all(type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst();
  }

  /** Objects of kinds the model does not know (cert-manager, Prometheus Operator). */
  List<GenericKubernetesResource> generic(String apiVersion, String kind) {
    return all(GenericKubernetesResource.class).stream()
        .filter(o -> o.getApiVersion().equals(apiVersion) && o.getKind().equals(kind))
        .toList();
  }
}
