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
 * The ValidatingAdmissionPolicies that narrow the node's SliceNode writes to its own node and its
 * Node patches to its own Node's smslice labels, rendered and then evaluated offline with CEL for
 * Java the way the API server evaluates them: match conditions, then variables, then validations,
 * on an admission request.
 */
class NodeSliceNodePolicyTest {
  private static final String NODE_SA = "system:serviceaccount:smslice-system:smslice-node";
  private static final String NODE_NAME_KEY = "authentication.kubernetes.io/node-name";

  private static ValidatingAdmissionPolicy policy;
  private static ValidatingAdmissionPolicy nodePolicy;
  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addVar("request", SimpleType.DYN)
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("variables", SimpleType.DYN)
          .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  @BeforeAll
  static void render() {
    policy = Chart.render().named(ValidatingAdmissionPolicy.class, "smslice-node-own-slicenode");
    nodePolicy = Chart.render().named(ValidatingAdmissionPolicy.class, "smslice-node-own-node");
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
    return admit(policy, request, Map.of(), Map.of());
  }

  /** Also used for the DRA policy (DraChartTest); object or oldObject null as on DELETE/CREATE. */
  static String admit(
      ValidatingAdmissionPolicy policy,
      Map<String, Object> request,
      Map<String, Object> object,
      Map<String, Object> oldObject) {
    Map<String, Object> vars = new HashMap<>();
    vars.put("request", request);
    // CEL's null is protobuf's NullValue for CEL for Java, not a Java null.
    vars.put("object", object == null ? com.google.protobuf.NullValue.NULL_VALUE : object);
    vars.put("oldObject", oldObject == null ? com.google.protobuf.NullValue.NULL_VALUE : oldObject);
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
    // Only the node's two policies go; the claim-name policy is not about node tokens.
    assertThat(off.all(ValidatingAdmissionPolicy.class))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("smslice-claim-name-length");
    assertThat(off.all(ValidatingAdmissionPolicyBinding.class))
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("smslice-claim-name-length");
  }

  /** A Node as the API server passes it to admission, labels and spec given. */
  private static Map<String, Object> node(
      String name, Map<String, String> labels, Map<String, Object> spec) {
    return Map.of(
        "metadata",
        Map.of("name", name, "labels", labels, "annotations", Map.of("team", "vision")),
        "spec",
        spec);
  }

  private static final Map<String, String> LABELS =
      Map.of(
          "kubernetes.io/hostname",
          "gpu-1",
          "smslice.io/config",
          "lab",
          "smslice.io/mode",
          "green");
  private static final Map<String, Object> SPEC =
      Map.of("taints", List.of(Map.of("key", "gpu", "effect", "NoSchedule")));

  private static Map<String, String> with(Map<String, String> labels, String key, String value) {
    Map<String, String> out = new HashMap<>(labels);
    out.put(key, value);
    return out;
  }

  private static String patchNode(String onNode, String name, Map<String, Object> object) {
    return admit(
        nodePolicy,
        request(NODE_SA, Map.of(NODE_NAME_KEY, List.of(onNode)), name),
        object,
        node(name, LABELS, SPEC));
  }

  @Test
  void theNodeChangesOnlyItsOwnNodesSmsliceLabels() {
    assertThat(
            patchNode(
                "gpu-1", "gpu-1", node("gpu-1", with(LABELS, "smslice.io/free-sms", "132"), SPEC)))
        .isEqualTo("allowed");
    assertThat(
            patchNode(
                "gpu-1", "gpu-1", node("gpu-1", with(LABELS, "smslice.io/mode", "mixed"), SPEC)))
        .isEqualTo("allowed");
    assertThat(patchNode("gpu-1", "gpu-1", node("gpu-1", LABELS, SPEC))).isEqualTo("allowed");

    assertThat(
            patchNode(
                "gpu-1", "gpu-2", node("gpu-2", with(LABELS, "smslice.io/free-sms", "8"), SPEC)))
        .isEqualTo("the smslice node on gpu-1 may label only the Node gpu-1, not gpu-2");
  }

  @Test
  void theNodeCannotTouchOtherLabelsSpecOrAnnotations() {
    String onlyLabels =
        "the smslice node may change only the labels smslice.io/mode, smslice.io/free-sms and"
            + " smslice.io/gpus of its Node";
    assertThat(patchNode("gpu-1", "gpu-1", node("gpu-1", with(LABELS, "team", "x"), SPEC)))
        .isEqualTo(onlyLabels);
    assertThat(
            patchNode(
                "gpu-1", "gpu-1", node("gpu-1", with(LABELS, "kubernetes.io/hostname", "x"), SPEC)))
        .isEqualTo(onlyLabels);
    // The administrator's config label is under smslice.io/ but not the node's to change.
    assertThat(
            patchNode(
                "gpu-1", "gpu-1", node("gpu-1", with(LABELS, "smslice.io/config", "x"), SPEC)))
        .isEqualTo(onlyLabels);
    Map<String, String> removed = new HashMap<>(LABELS);
    removed.remove("kubernetes.io/hostname");
    assertThat(patchNode("gpu-1", "gpu-1", node("gpu-1", removed, SPEC))).isEqualTo(onlyLabels);

    assertThat(patchNode("gpu-1", "gpu-1", node("gpu-1", LABELS, Map.of("taints", List.of()))))
        .startsWith("the smslice node may change only the labels")
        .contains("spec (taints, cordon)");
    assertThat(
            patchNode(
                "gpu-1",
                "gpu-1",
                node("gpu-1", LABELS, Map.of("unschedulable", true, "taints", List.of()))))
        .contains("spec (taints, cordon)");
    Map<String, Object> annotated =
        Map.of(
            "metadata",
            Map.of("name", "gpu-1", "labels", LABELS, "annotations", Map.of("team", "other")),
            "spec",
            SPEC);
    assertThat(patchNode("gpu-1", "gpu-1", annotated)).contains("annotations");
  }

  @Test
  void nodePatchesNeedTheTokensNodeAndOtherUsersAreNotMatched() {
    Map<String, Object> labelled = node("gpu-1", with(LABELS, "smslice.io/gpus", "1"), SPEC);
    assertThat(
            admit(
                nodePolicy,
                request(NODE_SA, Map.of(), "gpu-1"),
                labelled,
                node("gpu-1", LABELS, SPEC)))
        .contains("names no node");
    assertThat(
            admit(
                nodePolicy,
                request("kubernetes-admin", Map.of(), "gpu-1"),
                node("gpu-1", Map.of(), Map.of()),
                node("gpu-1", LABELS, SPEC)))
        .isEqualTo("not matched");

    NamedRuleWithOperations rule =
        nodePolicy.getSpec().getMatchConstraints().getResourceRules().getFirst();
    assertThat(rule.getApiGroups()).containsExactly("");
    assertThat(rule.getResources()).containsExactly("nodes");
    assertThat(rule.getOperations()).containsExactly("UPDATE");
    assertThat(nodePolicy.getSpec().getFailurePolicy()).isEqualTo("Fail");
    ValidatingAdmissionPolicyBinding binding =
        Chart.render().named(ValidatingAdmissionPolicyBinding.class, "smslice-node-own-node");
    assertThat(binding.getSpec().getPolicyName()).isEqualTo("smslice-node-own-node");
    assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
  }
}
