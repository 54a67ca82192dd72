package io.smslice.e2e;

import com.fasterxml.jackson.core.type.TypeReference;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The installed chart's RBAC as the real authorizer reads it, against the list of API calls the
 * code makes (charts/src/test/resources/api-calls.yaml, which the chart tests keep in step with the
 * sources): every call of the installed allocation mode is allowed to its component's
 * ServiceAccount, and no other verb on the same resources is, nor the same verbs on other names
 * where a call names its resources.
 */
final class RbacCheck {
  private static final Set<String> VERBS =
      Set.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection");

  record Call(
      String group,
      String resource,
      List<String> verbs,
      String scope,
      String why,
      String where,
      String code,
      List<String> modes,
      List<String> resourceNames) {}

  record Component(String serviceAccount, List<Call> calls) {}

  /** A resource as RBAC scopes it: group, resource (with subresource), scope and names. */
  private record Target(String group, String resource, String scope, List<String> names) {
    String describe() {
      return resource
          + "."
          + group
          + " ("
          + scope
          + (names.isEmpty() ? "" : ", named " + names)
          + ")";
    }
  }

  private RbacCheck() {}

  static Map<String, Component> components(TestCluster cluster) throws Exception {
    try (InputStream in =
        Files.newInputStream(cluster.repo.resolve("charts/src/test/resources/api-calls.yaml"))) {
      return new KubernetesSerialization()
          .unmarshal(in, new TypeReference<Map<String, Component>>() {});
    }
  }

  /** What the real authorizer answers differently from the calls of {@code mode}'s install. */
  static List<String> violations(TestCluster cluster, String mode) throws Exception {
    List<String> wrong = new ArrayList<>();
    for (var component : components(cluster).entrySet()) {
      String user =
          "system:serviceaccount:"
              + Install.NAMESPACE
              + ":"
              + component.getValue().serviceAccount();
      Map<Target, Set<String>> used = new HashMap<>();
      for (Call call : component.getValue().calls()) {
        if (call.modes() != null && !call.modes().contains(mode)) {
          continue;
        }
        Target target =
            new Target(
                call.group(),
                call.resource(),
                call.scope(),
                call.resourceNames() == null ? List.of() : call.resourceNames());
        for (String verb : call.verbs()) {
          for (String name : namesOrNone(target)) {
            if (!allowed(cluster, user, verb, target, name)) {
              wrong.add(
                  component.getKey()
                      + " may not "
                      + verb
                      + " "
                      + target.describe()
                      + ": "
                      + call.why());
            }
          }
        }
        if (!"default".equals(call.scope())) {
          used.computeIfAbsent(target, k -> new TreeSet<>()).addAll(call.verbs());
        }
      }
      for (var resource : used.entrySet()) {
        Target target = resource.getKey();
        Set<String> unused = new TreeSet<>(VERBS);
        unused.removeAll(resource.getValue());
        for (String verb : unused) {
          for (String name : namesOrNone(target)) {
            if (allowed(cluster, user, verb, target, name)) {
              wrong.add(
                  component.getKey()
                      + " may "
                      + verb
                      + " "
                      + target.describe()
                      + " though no call of its code needs it");
            }
          }
        }
        // A rule that names its resources must not reach the others.
        if (!target.names().isEmpty()) {
          for (String verb : resource.getValue()) {
            if (allowed(cluster, user, verb, target, "not-" + target.names().getFirst())) {
              wrong.add(
                  component.getKey()
                      + " may "
                      + verb
                      + " "
                      + target.resource()
                      + " of names beside "
                      + target.names());
            }
          }
        }
      }
    }
    return wrong;
  }

  private static List<String> namesOrNone(Target target) {
    return target.names().isEmpty() ? java.util.Collections.singletonList(null) : target.names();
  }

  /** `kubectl auth can-i` as the ServiceAccount: a SubjectAccessReview the API server answers. */
  private static boolean allowed(
      TestCluster cluster, String user, String verb, Target target, String name) throws Exception {
    String[] parts = target.resource().split("/", 2);
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb));
    String type = target.group().isEmpty() ? parts[0] : parts[0] + "." + target.group();
    args.add(name == null ? type : type + "/" + name);
    if (parts.length == 2) {
      args.add("--subresource=" + parts[1]);
    }
    switch (target.scope()) {
      case "cluster" -> args.add("--all-namespaces");
      case "release-namespace" -> args.addAll(List.of("-n", Install.NAMESPACE));
      case "default" -> {}
      default ->
          throw new IllegalArgumentException(
              "unknown scope " + target.scope() + " in api-calls.yaml");
    }
    args.addAll(List.of("--as", user));
    var result = cluster.kubectl(args.toArray(String[]::new)).run();
    String answer = result.stdout().strip();
    if (!answer.equals("yes") && !answer.equals("no")) {
      throw new IllegalStateException(
          "kubectl " + String.join(" ", args) + " answered: " + answer + result.stderr());
    }
    return answer.equals("yes");
  }
}
