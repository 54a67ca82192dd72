package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Pod;
import io.smslice.api.v1alpha1.SmsliceApi;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The unmodified processes the agent saw attach to each transparent claim (the interposer's ATTACH
 * on the claim's socket), sampled while the demo runs: the evidence that the PyTorch containers'
 * CUDA work went through their claims' slices and not around them.
 */
final class AttachedTenants {
  private final DemoNode node;
  private final Map<String, Set<String>> seen = new ConcurrentSkipListMap<>();

  /** Watches the claims of the pods the process runtime runs. */
  AttachedTenants(DemoNode node, List<Pod> pods) {
    this.node = node;
    for (Pod pod : pods) {
      var annotations = pod.getMetadata().getAnnotations();
      boolean processes = pod.getSpec().getContainers().stream().anyMatch(ProcessRuntime::runs);
      if (processes
          && annotations != null
          && annotations.containsKey(SmsliceApi.CLAIM_ANNOTATION)) {
        seen.put(annotations.get(SmsliceApi.CLAIM_ANNOTATION), new LinkedHashSet<>());
      }
    }
  }

  void sample() {
    seen.forEach((claim, processes) -> processes.addAll(node.attached(Demo.NAMESPACE, claim)));
  }

  String render() {
    if (seen.isEmpty()) {
      return "";
    }
    List<String> parts = new ArrayList<>();
    seen.forEach((claim, p) -> parts.add(claim + " " + (p.isEmpty() ? "none yet" : p)));
    return "attached to their claims (ATTACH): " + String.join("; ", parts);
  }

  List<String> summary() {
    List<String> lines = new ArrayList<>();
    seen.forEach(
        (claim, p) ->
            lines.add(
                "processes attached to claim " + claim + " (ATTACH, seen by the agent): " + p));
    return lines;
  }

  List<String> problems() {
    List<String> problems = new ArrayList<>();
    seen.forEach(
        (claim, p) -> {
          if (p.isEmpty()) {
            problems.add(
                "no process attached to claim "
                    + claim
                    + ": its PyTorch container's CUDA work never reached the claim's slice");
          }
        });
    return problems;
  }
}
