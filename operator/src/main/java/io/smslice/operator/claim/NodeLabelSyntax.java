package io.smslice.operator.claim;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * Kubernetes' rules for label keys and values, applied to a claim's {@code selector.nodeLabels}: a
 * key or value no node can carry would leave the claim waiting for ever, so it fails at once.
 */
final class NodeLabelSyntax {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private NodeLabelSyntax() {}

  /** Why the labels cannot select any node, or null when they can. */
  static String invalid(Map<String, String> labels) {
    for (var e : labels.entrySet()) {
      String key = e.getKey();
      String value = e.getValue() == null ? "" : e.getValue();
      String why = key(key);
      if (why != null) {
        return "spec.selector.nodeLabels key '" + key + "' " + why;
      }
      if (!value.isEmpty() && (value.length() > 63 || !NAME.matcher(value).matches())) {
        return "spec.selector.nodeLabels value '"
            + value
            + "' of key "
            + key
            + " is not a label value (at most 63 letters, digits, '-', '_' or '.', starting and"
            + " ending with a letter or digit)";
      }
    }
    return null;
  }

  private static String key(String key) {
    int slash = key.indexOf('/');
    String prefix = slash < 0 ? null : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (prefix != null && (prefix.length() > 253 || !PREFIX.matcher(prefix).matches())) {
      return "has a prefix that is not a DNS subdomain (lower case, such as example.com/)";
    }
    if (name.isEmpty() || name.length() > 63 || !NAME.matcher(name).matches()) {
      return "is not a label key (a name of at most 63 letters, digits, '-', '_' or '.', starting"
          + " and ending with a letter or digit, with an optional DNS prefix and '/')";
    }
    return null;
  }
}
