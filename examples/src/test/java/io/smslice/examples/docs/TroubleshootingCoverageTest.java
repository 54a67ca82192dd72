package io.smslice.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.examples.docs.UserMessages.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * docs/troubleshooting.md quotes every message the code can show a user: the node side's and the
 * interposer's {@code smslice:} messages, the webhook's denials, the CRDs' validation messages, the
 * chart's refusals, and every condition and event reason. A message added to the code without an
 * entry on the page fails here, with the file and line that builds it.
 */
class TroubleshootingCoverageTest {
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /**
   * CamelCase literals in the operator and node sources that are not smslice's reasons: Kubernetes
   * names the code reads or writes (kinds, pod phases, condition types and reasons, taint effects
   * and toleration operators, event types, the admission response's HTTP reason and patch type, the
   * resource.k8s.io kinds and the allocation mode the operator writes, the opaque config's kind)
   * and units.
   */
  static final Set<String> NOT_REASONS =
      Set.of(
          "True",
          "False",
          "Normal",
          "Warning",
          "Pending",
          "Failed",
          "Succeeded",
          "Ready",
          "PodScheduled",
          "Unschedulable",
          "Exists",
          "NoSchedule",
          "NoExecute",
          "Pod",
          "Node",
          "SliceClaim",
          "SliceClaimTemplate",
          "AdmissionReview",
          "BadRequest",
          "JSONPatch",
          "In",
          "Mi",
          "Healthy",
          "Unhealthy",
          "ResourceClaim",
          "ResourceClaimTemplate",
          "SliceConfig",
          "ExactCount");

  private final String page =
      UserMessages.normalise(UserMessages.read(ROOT.resolve("docs/troubleshooting.md")));

  @Test
  void everySmsliceMessageOfTheNodeSideIsOnThePage() {
    List<Message> messages = new ArrayList<>();
    for (String module : List.of("device-plugin/node", "device-plugin/agent", "operator")) {
      for (Path f : UserMessages.files(ROOT.resolve(module).resolve("src/main/java"), ".java")) {
        String code = UserMessages.read(f);
        messages.addAll(UserMessages.at(rel(f), code, "\"smslice: "));
        messages.addAll(UserMessages.at(rel(f), code, "claimRef(r)"));
      }
    }
    assertThat(messages).as("node-side messages found").hasSizeGreaterThanOrEqualTo(15);
    assertOnPage(messages);
  }

  @Test
  void everyLineTheInterposerWritesIsOnThePage() {
    List<Message> messages = new ArrayList<>();
    Path c = ROOT.resolve("device-plugin/interposer/src/main/c");
    for (Path f : UserMessages.files(c, ".c")) {
      String code = UserMessages.read(f);
      // smslice_error writes the line; fail(), fail_context(), slice_refuse() and confined() hand
      // it the part that says why or what.
      for (String call :
          List.of("smslice_error(", "fail(", "fail_context(", "slice_refuse(", "confined(")) {
        messages.addAll(UserMessages.at(rel(f), code, call));
      }
    }
    assertThat(messages).as("interposer messages found").hasSizeGreaterThanOrEqualTo(30);
    assertOnPage(messages);
  }

  @Test
  void everyWebhookDenialAndCrdRuleIsOnThePage() {
    List<Message> messages = new ArrayList<>();
    for (Path f :
        UserMessages.files(
            ROOT.resolve("operator/src/main/java/io/smslice/operator/webhook"), ".java")) {
      messages.addAll(UserMessages.at(rel(f), UserMessages.read(f), "deny("));
    }
    Path slicePods = ROOT.resolve("operator/src/main/java/io/smslice/operator/pods/SlicePods.java");
    messages.addAll(
        UserMessages.at(rel(slicePods), UserMessages.read(slicePods), "\"annotation \""));
    for (Path f : UserMessages.files(ROOT.resolve("crds/src/main/java"), ".java")) {
      messages.addAll(UserMessages.at(rel(f), UserMessages.read(f), "message ="));
    }
    assertThat(messages).as("denials and rules found").hasSizeGreaterThanOrEqualTo(10);
    assertOnPage(messages);
  }

  @Test
  void everyChartRefusalIsOnThePage() {
    List<Message> messages = new ArrayList<>();
    for (Path f : UserMessages.files(ROOT.resolve("charts/smslice/templates"), "")) {
      if (f.toFile().isFile()) {
        messages.addAll(UserMessages.chartFailures(rel(f), UserMessages.read(f)));
      }
    }
    assertThat(messages).as("chart refusals found").hasSizeGreaterThanOrEqualTo(20);
    assertOnPage(messages);
  }

  @Test
  void everyConditionAndEventReasonIsOnThePage() {
    Set<String> reasons = new TreeSet<>();
    for (String module : List.of("operator", "device-plugin/node")) {
      for (Path f : UserMessages.files(ROOT.resolve(module).resolve("src/main/java"), ".java")) {
        reasons.addAll(UserMessages.camelCaseLiterals(UserMessages.read(f)));
      }
    }
    reasons.removeAll(NOT_REASONS);
    assertThat(reasons)
        .as("reasons found")
        .contains("InsufficientCapacity", "AwaitingAllocateOrder", "GpuClientFault");
    List<String> missing = reasons.stream().filter(r -> !page.contains("`" + r + "`")).toList();
    assertThat(missing).as("reasons that docs/troubleshooting.md does not name in `...`").isEmpty();
  }

  private void assertOnPage(List<Message> messages) {
    List<String> missing = new ArrayList<>();
    for (Message m : messages) {
      for (String piece : m.pieces()) {
        if (!page.contains(piece)) {
          missing.add(m.where() + ": \"" + piece + "\"");
        }
      }
    }
    assertThat(missing).as("message text that docs/troubleshooting.md does not quote").isEmpty();
  }

  private static String rel(Path f) {
    return ROOT.relativize(f).toString();
  }
}
