package io.smslice.node.config;

import java.util.Optional;
import java.util.regex.Pattern;

/** Kubelet extended resource names, one per way a GPU is shared. */
public record ResourceNames(String sm, String mig, String mps) {
  public static final ResourceNames DEFAULTS =
      new ResourceNames("smslice.io/sm", "smslice.io/mig", "smslice.io/mps");

  // The kubelet registers a device plugin only for an extended resource name: one outside the
  // kubernetes.io domains and without the "requests." quota prefix, such that "requests." + name
  // is a qualified name (a DNS-1123 subdomain prefix of at most 253 characters, '/', and a name
  // part of at most 63).
  private static final String QUOTA_PREFIX = "requests.";
  private static final int SUBDOMAIN_MAX = 253;
  private static final int NAME_PART_MAX = 63;
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

  /** Why the kubelet would refuse to register {@code name}, or empty when it would accept it. */
  public static Optional<String> problem(String name) {
    int slash = name.indexOf('/');
    if (slash < 0 || slash != name.lastIndexOf('/')) {
      return Optional.of("it must be <domain>/<name> with exactly one '/'");
    }
    String prefix = name.substring(0, slash);
    String part = name.substring(slash + 1);
    if (name.contains("kubernetes.io/")) {
      return Optional.of("names in a kubernetes.io domain are reserved for Kubernetes");
    }
    if (name.startsWith(QUOTA_PREFIX)) {
      return Optional.of("the prefix requests. is reserved for resource quotas");
    }
    if (!SUBDOMAIN.matcher(prefix).matches()) {
      return Optional.of(
          "the domain must be lower-case letters, digits, '-' and '.', each dot-separated part"
              + " starting and ending with a letter or digit");
    }
    int prefixMax = SUBDOMAIN_MAX - QUOTA_PREFIX.length();
    if (prefix.length() > prefixMax) {
      return Optional.of("the domain must be at most " + prefixMax + " characters");
    }
    if (part.length() > NAME_PART_MAX) {
      return Optional.of("the part after '/' must be at most " + NAME_PART_MAX + " characters");
    }
    if (!NAME_PART.matcher(part).matches()) {
      return Optional.of(
          "the part after '/' must be letters, digits, '-', '_' and '.', starting and ending with"
              + " a letter or digit");
    }
    return Optional.empty();
  }
}
