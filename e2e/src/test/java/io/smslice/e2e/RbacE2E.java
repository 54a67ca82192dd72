package io.smslice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The installed chart's RBAC as the real authorizer reads it, against the list of API calls the
 * code makes (charts/src/test/resources/api-calls.yaml, which the chart tests keep in step with the
 * sources): every call is allowed to its component's ServiceAccount, and no other verb on the same
 * resources is, for the allocation mode installed. A verb removed from the chart, or one granted
 * beyond use, fails here.
 */
@Order(60)
@ExtendWith(ClusterExtension.class)
class RbacE2E {
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

  /** The chart's allocation mode while this test runs (DraE2E installs the other one later). */
  private static final String MODE = "devicePlugin";

  private static Map<String, Component> components;

  @BeforeAll
  static void install(TestCluster cluster) throws Exception {
    Install.ensure(cluster);
    try (InputStream in =
        Files.newInputStream(cluster.repo.resolve("charts/src/test/resources/api-calls.yaml"))) {
      components =
          new KubernetesSerialization()
              .unmarshal(in, new TypeReference<Map<String, Component>>() {});
    }
    assertThat(components).containsKeys("operator", "node");
  }

  @Test
  void everyCallTheCodeMakesIsAllowedAndNoOtherVerbOnItsResources(TestCluster cluster)
      throws Exception {
    List<String> wrong = new ArrayList<>();
    for (var component : components.entrySet()) {
      String user =
          "system:serviceaccount:"
              + Install.NAMESPACE
              + ":"
              + component.getValue().serviceAccount();
      Map<List<String>, Set<String>> used = new HashMap<>();
      for (Call call : component.getValue().calls()) {
        if (call.modes() != null && !call.modes().contains(MODE)) {
          continue;
        }
        if (call.resourceNames() != null) {
          throw new IllegalStateException(
              "api-calls.yaml: " + target(call) + " names resources; this test asks about none");
        }
        for (String verb : call.verbs()) {
          if (!allowed(cluster, user, verb, call.group(), call.resource(), call.scope())) {
            wrong.add(
                component.getKey() + " may not " + verb + " " + target(call) + ": " + call.why());
          }
        }
        if (!"default".equals(call.scope())) {
          used.computeIfAbsent(
                  List.of(call.group(), call.resource(), call.scope()), k -> new TreeSet<>())
              .addAll(call.verbs());
        }
      }
      for (var resource : used.entrySet()) {
        Set<String> unused = new TreeSet<>(VERBS);
        unused.removeAll(resource.getValue());
        List<String> key = resource.getKey();
        for (String verb : unused) {
          if (allowed(cluster, user, verb, key.get(0), key.get(1), key.get(2))) {
            wrong.add(
                component.getKey()
                    + " may "
                    + verb
                    + " "
                    + key.get(1)
                    + "."
                    + key.get(0)
                    + " ("
                    + key.get(2)
                    + ") though no call of its code needs it");
          }
        }
      }
    }
    assertThat(wrong).as("what the real authorizer allows beside the code's calls").isEmpty();
  }

  private static String target(Call call) {
    return call.resource() + "." + call.group() + " (" + call.scope() + ")";
  }

  /** `kubectl auth can-i` as the ServiceAccount: a SubjectAccessReview the API server answers. */
  private static boolean allowed(
      TestCluster cluster, String user, String verb, String group, String resource, String scope)
      throws Exception {
    String[] parts = resource.split("/", 2);
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb));
    args.add(group.isEmpty() ? parts[0] : parts[0] + "." + group);
    if (parts.length == 2) {
      args.add("--subresource=" + parts[1]);
    }
    switch (scope) {
      case "cluster" -> args.add("--all-namespaces");
      case "release-namespace" -> args.addAll(List.of("-n", Install.NAMESPACE));
      case "default" -> {}
      default ->
          throw new IllegalArgumentException("unknown scope " + scope + " in api-calls.yaml");
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
