package io.smslice.api.v1alpha1.validation;

import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelFunctionBinding;
import java.math.BigDecimal;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of the API server's CEL quantity library that our rules use ({@code isQuantity}, {@code
 * quantity}, {@code sign}), following the Kubernetes quantity grammar, so the rules can be
 * evaluated without an API server.
 */
final class KubernetesQuantityLibrary {
  private static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  private static final Pattern GRAMMAR =
      Pattern.compile(
          "^([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\\d+)?$");

  /** A parsed quantity; only its sign matters to our rules. */
  record Quantity(BigDecimal number) {}

  private KubernetesQuantityLibrary() {}

  static List<CelFunctionDecl> declarations() {
    return List.of(
        CelFunctionDecl.newFunctionDeclaration(
            "isQuantity",
            CelOverloadDecl.newGlobalOverload("is_quantity", SimpleType.BOOL, SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration(
            "quantity",
            CelOverloadDecl.newGlobalOverload("string_to_quantity", QUANTITY, SimpleType.STRING)),
        CelFunctionDecl.newFunctionDeclaration(
            "sign", CelOverloadDecl.newMemberOverload("quantity_sign", SimpleType.INT, QUANTITY)));
  }

  static List<CelFunctionBinding> bindings() {
    return List.of(
        CelFunctionBinding.from(
            "is_quantity", String.class, text -> GRAMMAR.matcher(text).matches()),
        CelFunctionBinding.from(
            "string_to_quantity", String.class, KubernetesQuantityLibrary::parse),
        CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.number().signum()));
  }

  private static Quantity parse(String text) {
    Matcher m = GRAMMAR.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("quantities must match the regular expression " + GRAMMAR);
    }
    return new Quantity(new BigDecimal(m.group(1)));
  }
}
