package io.smslice.examples.demo;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.smslice.api.v1alpha1.claim.Isolation;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.discovery.DiscoveredGpu;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The examples the real-GPU demo applies. A real machine has fewer SMs than every example claims
 * together (the simulated node has two green GPUs and a MIG GPU; one H200 has 132 SMs, exactly what
 * the PyTorch ensemble claims), so the demo takes the example folders in order, the PyTorch
 * ensemble first, and applies a folder whole when its claims fit the SMs the GPUs have left (first
 * fit by SM count, as a rough forecast of the operator's placement). A folder that does not fit is
 * left out with the reason, rather than applied with claims that would stay Pending and pods that
 * would wait for them.
 *
 * @param chosen the objects of the folders applied
 * @param leftOut one line per folder left out, with why
 */
record ExampleSelection(ExampleObjects chosen, List<String> leftOut) {
  static final String PYTORCH = "ensemble/pytorch";

  static ExampleSelection forGpus(
      Path examples, KubernetesSerialization serialization, List<DiscoveredGpu> gpus)
      throws IOException {
    Path root = examples.toRealPath();
    Map<Path, List<Path>> folders = new LinkedHashMap<>();
    List<Path> files = new ArrayList<>(ExampleObjects.files(root, ".yaml"));
    files.addAll(ExampleObjects.files(root, ".yml"));
    files.stream()
        .sorted(
            Comparator.comparing(
                    (Path f) -> !root.relativize(f.getParent()).toString().equals(PYTORCH))
                .thenComparing(Comparator.naturalOrder()))
        .forEach(f -> folders.computeIfAbsent(f.getParent(), k -> new ArrayList<>()).add(f));
    List<Integer> free =
        new ArrayList<>(
            gpus.stream()
                .filter(g -> g.mode() == GpuMode.Green)
                .map(DiscoveredGpu::smCount)
                .toList());
    boolean mig = gpus.stream().anyMatch(g -> g.mode() == GpuMode.MIG);
    ExampleObjects chosen = new ExampleObjects(List.of(), List.of(), List.of(), List.of());
    List<String> leftOut = new ArrayList<>();
    for (Map.Entry<Path, List<Path>> folder : folders.entrySet()) {
      ExampleObjects objects = ExampleObjects.load(folder.getValue(), serialization);
      String why = fit(objects.claims(), free, mig);
      if (why == null) {
        chosen = chosen.plus(objects);
      } else {
        leftOut.add("examples/" + root.relativize(folder.getKey()) + ": " + why);
      }
    }
    return new ExampleSelection(chosen, List.copyOf(leftOut));
  }

  /**
   * Takes the claims' SMs from {@code free} (first fit, per GPU) and returns null; or, when one
   * does not fit, leaves {@code free} as it was and says why.
   */
  static String fit(List<SliceClaim> claims, List<Integer> free, boolean mig) {
    List<Integer> left = new ArrayList<>(free);
    for (SliceClaim claim : claims) {
      String name = claim.getMetadata().getName();
      Isolation isolation = claim.getSpec().getIsolation();
      if (isolation == Isolation.Memory) {
        if (!mig) {
          return "claim " + name + " needs a MIG instance and no GPU here is in MIG mode";
        }
        continue;
      }
      if (isolation == Isolation.Shared) {
        return "claim " + name + " needs an MPS-mode GPU; the demo runs its GPUs in green mode";
      }
      int sms = sms(claim);
      int gpu = 0;
      while (gpu < left.size() && left.get(gpu) < sms) {
        gpu++;
      }
      if (gpu == left.size()) {
        return String.format(
            Locale.ROOT,
            "claim %s needs %d SMs; the GPUs have %s SMs left after the examples before it",
            name,
            sms,
            left.isEmpty() ? "no green GPU with" : left);
      }
      left.set(gpu, left.get(gpu) - sms);
    }
    free.clear();
    free.addAll(left);
    return null;
  }

  /** The SMs a claim takes at most during the demo (the resized claim grows). */
  private static int sms(SliceClaim claim) {
    int sms = claim.getSpec().getSms() == null ? 0 : claim.getSpec().getSms();
    return claim.getMetadata().getName().equals(Demo.RESIZED_CLAIM)
        ? Math.max(sms, Demo.RESIZED_TO)
        : sms;
  }
}
