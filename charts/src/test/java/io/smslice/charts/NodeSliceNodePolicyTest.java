package io.smslice.charts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ValidatingAdmissionPolicy that narrows the node's SliceNode writes to its own node, rendered
 * and then evaluated offline with CEL for Java the way the API server evaluates it: match
 * conditions, then variables, then validations, on an admission request.
 */
class NodeSliceNodePolicyTest {
  private static final String NODE_SA = "system:serviceaccount:smslice-system:smslice-node";
  private static final String NODE_NAME_KEY = "authentication.kubernetes.io/node-name";

  private static ValidatingAdmissionPolicy policy;
  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("request", SimpleType.DYN)
          .addVar("object", SimpleType.DYN)
          .addVar("variables", SimpleType.DYN)
          .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  @BeforeAll
  static void render() {
    policy = Chart.render().named(ValidatingAdmissionPolicy.class, "smslice-node-own-slicenode");
  }

  private static Object eval(String expression, Map<String, Object> vars) {
    try {
      return RUNTIME.createProgram(COMPILER.compile(expression).getAst()).eval(vars);
    } catch (Exception e) {
      throw new AssertionError("CEL failed: " + expression, e);
    }
  }

  private static Map<String, Object> request(
      String user, Map<String, List<String>> extra, String name) {
    return Map.of(
        "userInfo", Map.of("username", user, "extra", extra), "name", name, "operation", "UPDATE");
  }

  /** What the API server would answer: "allowed", "not matched", or the first failed message. */
  private static String admit(Map<String, Object> request) {
    Map<String, Object> vars = new HashMap<>(Map.of("request", request, "object", Map.of()));
    for (var condition : policy.getSpec().getMatchConditions()) {
      if (!Boolean.TRUE.equals(eval(condition.getExpression(), vars))) {
        return "not matched";
      }
    }
    Map<String, Object> variables = new HashMap<>();
    vars.put("variables", variables);
    for (Variable v : policy.getSpec().getVariables()) {
      variables.put(v.getName(), eval(v.getExpression(), vars));
    }
    for (Validation v : policy.getSpec().getValidations()) {
      if (!Boolean.TRUE.equals(eval(v.getExpression(), vars))) {
        assertThat(v.getReason()).isEqualTo("Forbidden");
        return v.getMessageExpression() != null
            ? (String) eval(v.getMessageExpression(), vars)
            : v.getMessage();
      }
    }
    return "allowed";
  }

  @Test
  void theNodeWritesItsOwnSliceNodeOnly() {
    assertThat(admit(request(NODE_SA, Map.of(NODE_NAME_KEY, List.of("gpu-1")), "gpu-1")))
        .isEqualTo("allowed");
    assertThat(admit(request(NODE_SA, Map.of(NODE_NAME_KEY, List.of("gpu-1")), "gpu-2")))
        .isEqualTo("the smslice node on gpu-1 may write only the SliceNode gpu-1, not gpu-2");
  }

  @Test
  void aTokenWithoutANodeNameIsDeniedWithTheReason() {
    assertThat(admit(request(NODE_SA, Map.of(), "gpu-1")))
        .contains("names no node")
        .contains("rbac.nodeOwnSliceNodeOnly=false");
  }

  @Test
  void otherUsersAreNotMatched() {
    assertThat(
            admit(request("system:serviceaccount:smslice-system:smslice-operator", Map.of(), "x")))
        .isEqualTo("not matched");
    assertThat(admit(request("kubernetes-admin", Map.of(), "x"))).isEqualTo("not matched");
  }

  @Test
  void everySliceNodeWriteIsCoveredAndTheBindingDenies() {
    List<String> covered = new ArrayList<>();
    for (NamedRuleWithOperations rule : policy.getSpec().getMatchConstraints().getResourceRules()) {
      assertThat(rule.getApiGroups()).containsExactly("smslice.io");
      for (String resource : rule.getResources()) {
        for (String op : rule.getOperations()) {
          covered.add(resource + " " + op);
        }
      }
    }
    assertThat(covered)
        .contains(
            "slicenodes CREATE",
            "slicenodes UPDATE",
            "slicenodes/status UPDATE",
            "slicenodes DELETE");
    assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");

    ValidatingAdmissionPolicyBinding binding =
        Chart.render().named(ValidatingAdmissionPolicyBinding.class, "smslice-node-own-slicenode");
    assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
    assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
  }

  @Test
  void canBeTurnedOff() {
    RenderedChart off = Chart.render(Map.of("rbac.nodeOwnSliceNodeOnly", false));
    assertThat(off.all(ValidatingAdmissionPolicy.class)).isEmpty();
    assertThat(off.all(ValidatingAdmissionPolicyBinding.class)).isEmpty();
  }
}
