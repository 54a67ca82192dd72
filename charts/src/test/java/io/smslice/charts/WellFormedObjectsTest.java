package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every rendered object of a kind the Kubernetes model knows has only fields that kind has: the
 * model keeps unknown fields (a misspelt or misplaced key) in additionalProperties, which the API
 * server would drop or reject.
 */
class WellFormedObjectsTest {
  private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "cert-manager.yaml",
        "cert-manager-issuer.yaml",
        "in-agent.yaml",
        "mig-only.yaml",
        "mixed-modes.yaml",
        "mps-nodes.yaml",
        "monitoring.yaml"
      })
  void noObjectHasFieldsItsKindDoesNotKnow(String valuesFile) throws Exception {
    RenderedChart chart = valuesFile.isEmpty() ? Chart.render() : Chart.render(valuesFile);
    List<String> unknown = new ArrayList<>();

    for (HasMetadata object : chart.objects()) {
      if (!(object instanceof GenericKubernetesResource)) {
        walk(object, object.getKind() + "/" + object.getMetadata().getName(), unknown);
      }
    }

    assertThat(chart.objects()).isNotEmpty();
    assertThat(unknown).as("fields unknown to their kind").isEmpty();
  }

  private static void walk(Object value, String path, List<String> unknown) throws Exception {
    switch (value) {
      case null -> {}
      case Map<?, ?> map -> {
        for (Map.Entry<?, ?> e : map.entrySet()) {
          walk(e.getValue(), path + "[" + e.getKey() + "]", unknown);
        }
      }
      case Collection<?> items -> {
        int i = 0;
        for (Object item : items) {
          walk(item, path + "[" + i++ + "]", unknown);
        }
      }
      default -> {
        if (value.getClass().getName().startsWith(MODEL_PACKAGE)) {
          walkModel(value, path, unknown);
        }
      }
    }
  }

  private static void walkModel(Object model, String path, List<String> unknown) throws Exception {
    for (Method getter : model.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getDeclaringClass() == Object.class) {
        continue;
      }
      Object field;
      try {
        field = getter.invoke(model);
      } catch (InvocationTargetException e) {
        continue; // a computed getter that does not apply to this value
      }
      if (getter.getName().equals("getAdditionalProperties")) {
        if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add(path + ": " + extra.keySet());
        }
      } else {
        walk(field, path + "." + getter.getName().substring(3), unknown);
      }
    }
  }
}
