package io.smslice.api.v1alpha1.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Validates objects against a CRD's structural schema the way the API server does on create and
 * update, without an API server: defaults first, then the OpenAPI schema (unknown fields rejected,
 * as kubectl's strict field validation does), then every x-kubernetes-validations CEL rule, with
 * transition rules (those naming oldSelf) only on update where an old value exists.
 */
public final class OfflineCrdValidator {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final JSONSchemaProps root;
  private final JsonSchema schema;
  private final CelCompiler compiler;
  private final CelRuntime runtime;

  public OfflineCrdValidator(CustomResourceDefinition crd) {
    this.root = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema();
    this.schema =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4)
            .getSchema(toJsonSchema(JSON.valueToTree(root)));
    this.compiler =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .addVar("oldSelf", SimpleType.DYN)
            .addFunctionDeclarations(KubernetesQuantityLibrary.declarations())
            .build();
    this.runtime =
        CelRuntimeFactory.standardCelRuntimeBuilder()
            .addFunctionBindings(KubernetesQuantityLibrary.bindings())
            .build();
  }

  /** Errors for a create; empty when the API server would accept the object. */
  public List<String> validateCreate(JsonNode object) {
    return validate(object, null);
  }

  /** Errors for an update from {@code old} to {@code object}. */
  public List<String> validateUpdate(JsonNode old, JsonNode object) {
    return validate(object, applyDefaults(old.deepCopy(), root));
  }

  private List<String> validate(JsonNode object, JsonNode old) {
    JsonNode defaulted = applyDefaults(object.deepCopy(), root);
    JsonNode body = withoutMetadata(defaulted);
    List<String> errors = new ArrayList<>();
    for (ValidationMessage m : schema.validate(body)) {
      errors.add(asApiServerSays(m));
    }
    if (errors.isEmpty()) {
      evaluateRules(
          root, "", toCel(body), old == null ? null : toCel(withoutMetadata(old)), errors);
    }
    return errors;
  }

  /**
   * The schema error as the API server words it (checked against a real one by InvalidClaimsE2E),
   * so that one list of expected messages serves both; other kinds keep the validator's words.
   */
  private static String asApiServerSays(ValidationMessage m) {
    String path = m.getInstanceLocation().toString().replaceFirst("^\\$\\.", "");
    Object[] args = m.getArguments() == null ? new Object[0] : m.getArguments();
    return switch (m.getType()) {
      case "minimum" -> path + " in body should be greater than or equal to " + args[0];
      case "maximum" -> path + " in body should be less than or equal to " + args[0];
      case "enum" -> path + ": Unsupported value: " + m.getInstanceNode();
      case "pattern" -> path + " in body should match '" + args[0] + "'";
      default -> m.getMessage();
    };
  }

  private void evaluateRules(
      JSONSchemaProps node, String path, Object self, Object oldSelf, List<String> errors) {
    if (self == null) {
      return;
    }
    for (ValidationRule rule : node.getXKubernetesValidations()) {
      boolean transition = rule.getRule().contains("oldSelf");
      if (transition && oldSelf == null) {
        continue;
      }
      if (!evaluate(rule.getRule(), self, oldSelf)) {
        String at = path + (rule.getFieldPath() == null ? "" : rule.getFieldPath());
        errors.add((at.isEmpty() ? "<root>" : at.substring(1)) + ": " + rule.getMessage());
      }
    }
    if (self instanceof Map<?, ?> map) {
      Map<?, ?> oldMap = oldSelf instanceof Map<?, ?> m ? m : Map.of();
      node.getProperties()
          .forEach(
              (name, child) ->
                  evaluateRules(child, path + "." + name, map.get(name), oldMap.get(name), errors));
    } else if (self instanceof List<?> list && node.getItems() != null) {
      for (int i = 0; i < list.size(); i++) {
        evaluateRules(node.getItems().getSchema(), path + "[" + i + "]", list.get(i), null, errors);
      }
    }
  }

  private boolean evaluate(String rule, Object self, Object oldSelf) {
    try {
      var program = runtime.createProgram(compiler.compile(rule).getAst());
      Map<String, Object> vars = new HashMap<>();
      vars.put("self", self);
      if (oldSelf != null) {
        vars.put("oldSelf", oldSelf);
      }
      return Boolean.TRUE.equals(program.eval(vars));
    } catch (Exception e) {
      throw new IllegalStateException("CEL rule failed to compile or run: " + rule, e);
    }
  }

  /** Fills absent fields that have a default, as the API server does before validating. */
  private static JsonNode applyDefaults(JsonNode value, JSONSchemaProps node) {
    if (value instanceof ObjectNode object && node.getProperties() != null) {
      node.getProperties()
          .forEach(
              (name, child) -> {
                if (!object.has(name) && child.getDefault() != null) {
                  object.set(name, child.getDefault().deepCopy());
                }
                if (object.has(name)) {
                  applyDefaults(object.get(name), child);
                }
              });
    }
    return value;
  }

  /** The API server checks metadata itself; the CRD schema covers the rest. */
  private static JsonNode withoutMetadata(JsonNode object) {
    ObjectNode copy = (ObjectNode) object.deepCopy();
    copy.remove(List.of("metadata", "apiVersion", "kind"));
    return copy;
  }

  /** OpenAPI v3 structural schema to draft-4 JSON schema: strict objects, no Kubernetes keys. */
  private static JsonNode toJsonSchema(JsonNode openApi) {
    if (openApi instanceof ObjectNode object) {
      object.properties().removeIf(e -> e.getKey().startsWith("x-kubernetes-"));
      object.remove("default");
      if (object.has("properties") && !object.has("additionalProperties")) {
        object.put("additionalProperties", false);
      }
      object.path("properties").elements().forEachRemaining(OfflineCrdValidator::toJsonSchema);
      toJsonSchema(object.path("items"));
      toJsonSchema(object.path("additionalProperties"));
      object.path("anyOf").elements().forEachRemaining(OfflineCrdValidator::toJsonSchema);
    }
    return openApi;
  }

  /** JSON to the values CEL works on: maps, lists, strings, booleans, int64 and double. */
  private static Object toCel(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isObject()) {
      Map<String, Object> map = new HashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), toCel(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.elements().forEachRemaining(e -> list.add(toCel(e)));
      return list;
    }
    if (node.isIntegralNumber()) {
      return node.longValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    return node.textValue();
  }
}
