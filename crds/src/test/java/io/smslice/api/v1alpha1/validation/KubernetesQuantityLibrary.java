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
 * quantity}, the global {@code sign}, {@code isInteger}), with the API server's overloads (a member
 * {@code q.sign()} does not compile there) and the Kubernetes quantity grammar, so the rules can be
 * evaluated without an API server.
 */
final class KubernetesQuantityLibrary {
  private static final OpaqueType QUANTITY = OpaqueType.create("kubernetes.Quantity");
  private static final Pattern GRAMMAR =
      Pattern.compile(
          "^([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\\d+)?$");

  /** A parsed quantity: its value, suffix applied. */
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
            "sign", CelOverloadDecl.newGlobalOverload("quantity_sign", SimpleType.INT, QUANTITY)),
        CelFunctionDecl.newFunctionDeclaration(
            "isInteger",
            CelOverloadDecl.newMemberOverload("quantity_is_integer", SimpleType.BOOL, QUANTITY)));
  }

  static List<CelFunctionBinding> bindings() {
    return List.of(
        CelFunctionBinding.from(
            "is_quantity", String.class, text -> GRAMMAR.matcher(text).matches()),
        CelFunctionBinding.from(
            "string_to_quantity", String.class, KubernetesQuantityLibrary::parse),
        CelFunctionBinding.from("quantity_sign", Quantity.class, q -> (long) q.number().signum()),
        CelFunctionBinding.from(
            "quantity_is_integer",
            Quantity.class,
            q -> {
              // As the API server: representable as an int64 without losing precision.
              try {
                q.number().longValueExact();
                return true;
              } catch (ArithmeticException e) {
                return false;
              }
            }));
  }

  private static Quantity parse(String text) {
    Matcher m = GRAMMAR.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("quantities must match the regular expression " + GRAMMAR);
    }
    return new Quantity(new BigDecimal(m.group(1)).multiply(scale(m.group(2))));
  }

  private static BigDecimal scale(String suffix) {
    if (suffix == null) {
      return BigDecimal.ONE;
    }
    return switch (suffix) {
      case "Ki" -> BigDecimal.TWO.pow(10);
      case "Mi" -> BigDecimal.TWO.pow(20);
      case "Gi" -> BigDecimal.TWO.pow(30);
      case "Ti" -> BigDecimal.TWO.pow(40);
      case "Pi" -> BigDecimal.TWO.pow(50);
      case "Ei" -> BigDecimal.TWO.pow(60);
      case "m" -> new BigDecimal("0.001");
      case "k" -> BigDecimal.TEN.pow(3);
      case "M" -> BigDecimal.TEN.pow(6);
      case "G" -> BigDecimal.TEN.pow(9);
      case "T" -> BigDecimal.TEN.pow(12);
      case "P" -> BigDecimal.TEN.pow(15);
      case "E" -> BigDecimal.TEN.pow(18);
      default -> BigDecimal.ONE.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    };
  }
}
