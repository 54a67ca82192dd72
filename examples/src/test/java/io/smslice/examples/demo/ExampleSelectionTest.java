package io.smslice.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.node.discovery.DiscoveredGpu;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which examples --gpu applies on a machine's real GPUs, and its options. */
class ExampleSelectionTest {
  private static final Path EXAMPLES = Path.of("").toAbsolutePath().getParent().resolve("examples");

  @Test
  void oneH200TakesThePytorchEnsembleWholeAndLeavesTheRestOutWithTheReason() throws Exception {
    ExampleSelection s =
        ExampleSelection.forGpus(EXAMPLES, new KubernetesSerialization(), List.of(h200(0)));
    assertThat(s.chosen().claims())
        .extracting(c -> c.getMetadata().getName())
        .containsExactly(
            "ensemble-resnet18", "ensemble-mobilenet", "ensemble-vit", "ensemble-trainer");
    assertThat(s.chosen().pods())
        .extracting(p -> p.getMetadata().getName())
        .containsExactly(
            "ensemble-resnet18",
            "ensemble-mobilenet",
            "ensemble-vit",
            "ensemble-voter",
            "ensemble-trainer");
    assertThat(s.chosen().services())
        .extracting(x -> x.getMetadata().getName())
        .containsExactly("ensemble-voter");
    assertThat(s.leftOut())
        .anySatisfy(l -> assertThat(l).startsWith("examples/detector-and-batch: claim detector"))
        .anySatisfy(l -> assertThat(l).startsWith("examples/resize: claim trainer needs 32 SMs"))
        .anySatisfy(l -> assertThat(l).startsWith("examples/mig-tenant: claim untrusted-tenant"))
        .anySatisfy(
            l -> assertThat(l).startsWith("examples/interference-guard: claim neighbour needs 116"))
        .hasSize(5);
  }

  @Test
  void moreGpusTakeMoreExamplesInOrder() throws Exception {
    ExampleSelection s =
        ExampleSelection.forGpus(
            EXAMPLES, new KubernetesSerialization(), List.of(h200(0), h200(1), h200(2)));
    assertThat(s.chosen().claims())
        .extracting(c -> c.getMetadata().getName())
        .contains("ensemble-trainer", "detector", "batch", "model-a", "model-c", "trainer");
    // The interference-guard pair needs a whole GPU (16 + 116 SMs) of its own: a fourth.
    assertThat(s.leftOut())
        .satisfiesExactly(
            l -> assertThat(l).startsWith("examples/interference-guard: claim neighbour"),
            l -> assertThat(l).startsWith("examples/mig-tenant"));
  }

  @Test
  void aClaimThatDoesNotFitLeavesTheFreeSmsAsTheyWere() throws Exception {
    var models =
        ExampleObjects.load(EXAMPLES.resolve("ensemble"), new KubernetesSerialization()).claims();
    List<Integer> free = new ArrayList<>(List.of(20, 30));
    // model-a and model-b (16 SMs each) fit first, model-c finds 4 and 14 SMs left.
    assertThat(ExampleSelection.fit(models, free, false))
        .isEqualTo(
            "claim model-c needs 16 SMs; the GPUs have [4, 14] SMs left after the examples"
                + " before it");
    assertThat(free).containsExactly(20, 30);
    free.set(1, 40);
    assertThat(ExampleSelection.fit(models, free, false)).isNull();
    assertThat(free).containsExactly(4, 8);
  }

  @Test
  void gpuOptionsAreCheckedBeforeAnythingStarts() {
    DemoOptions gpu = DemoOptions.parse(List.of("--gpu", "--python=/opt/torch/bin/python3"));
    assertThat(gpu.gpu()).isTrue();
    assertThat(gpu.backend()).isEqualTo("cuda");
    assertThat(gpu.python()).isEqualTo("/opt/torch/bin/python3");
    assertThat(DemoOptions.parse(List.of()).gpu()).isFalse();
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--gpu", "--backend=simulated")))
        .hasMessageContaining("--gpu runs on the real GPU");
    assertThatThrownBy(() -> DemoOptions.parse(List.of("--python=python3.12")))
        .hasMessageContaining("only with --gpu");
  }

  private static DiscoveredGpu h200(int index) {
    return new DiscoveredGpu(
        index,
        "GPU-" + index,
        "NVIDIA H200",
        GpuMode.Green,
        141L << 30,
        132,
        8,
        8,
        List.of(),
        List.of(),
        index,
        null);
  }
}
