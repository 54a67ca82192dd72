package io.smslice.agent.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.smslice.agent.Agent;
import io.smslice.agent.AgentOptions;
import io.smslice.agent.BoundClaim;
import io.smslice.agent.RunMode;
import io.smslice.api.v1alpha1.SmsliceApi;
import io.smslice.api.v1alpha1.claim.Binding;
import io.smslice.api.v1alpha1.claim.Phase;
import io.smslice.api.v1alpha1.claim.Priority;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import io.smslice.api.v1alpha1.claim.SliceClaimSpec;
import io.smslice.api.v1alpha1.claim.SliceClaimStatus;
import io.smslice.api.v1alpha1.node.GpuMode;
import io.smslice.client.SmsliceClient;
import io.smslice.client.SmsliceException;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true)
class ClaimWatcherTest {
  KubernetesClient client;
  @TempDir Path directory;

  private final SimulatedBackend backend = SimulatedBackend.h200(1);
  private final String gpu = backend.devices().getFirst().uuid();

  private SliceClaim claim(String node, Phase phase, GpuMode mode, List<Integer> groups) {
    SliceClaim claim = new SliceClaim();
    claim.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace("team")
            .withName("det")
            .withLabels(Map.of(SmsliceApi.NODE_LABEL, node))
            .build());
    SliceClaimSpec spec = new SliceClaimSpec();
    spec.setSms(16);
    spec.setMemory(new Quantity("2Gi"));
    claim.setSpec(spec);
    Binding binding = new Binding();
    binding.setNode(node);
    binding.setGpuUuid(gpu);
    binding.setMode(mode);
    binding.setSmGroups(groups);
    SliceClaimStatus status = new SliceClaimStatus();
    status.setPhase(phase);
    status.setBinding(binding);
    claim.setStatus(status);
    return claim;
  }

  @Test
  void theClaimsPriorityReachesTheAgentForItsGpusInterferenceGuard() {
    SliceClaim critical = claim("node-a", Phase.Bound, GpuMode.Green, List.of(0, 1));
    critical.getSpec().setPriority(Priority.LatencyCritical);
    assertThat(ClaimWatcher.boundHere(critical, "node-a", backend))
        .map(b -> b.priority())
        .contains(Priority.LatencyCritical);
    assertThat(
            ClaimWatcher.boundHere(
                claim("node-a", Phase.Bound, GpuMode.Green, List.of(0, 1)), "node-a", backend))
        .map(b -> b.priority())
        .contains(Priority.Standard);
  }

  @Test
  void onlyBoundGreenClaimsOfThisNodeAndItsGpusAreServed() {
    assertThat(
            ClaimWatcher.boundHere(
                claim("node-a", Phase.Bound, GpuMode.Green, List.of(0, 1)), "node-a", backend))
        .hasValueSatisfying(
            b -> {
              assertThat(b.groups()).containsExactly(0, 1);
              assertThat(b.memoryBytes()).isEqualTo(2L << 30);
            });
    assertThat(
            ClaimWatcher.boundHere(
                claim("node-b", Phase.Bound, GpuMode.Green, List.of(0)), "node-a", backend))
        .isEmpty();
    assertThat(
            ClaimWatcher.boundHere(
                claim("node-a", Phase.Pending, GpuMode.Green, List.of(0)), "node-a", backend))
        .isEmpty();
    assertThat(
            ClaimWatcher.boundHere(
                claim("node-a", Phase.Bound, GpuMode.MIG, List.of()), "node-a", backend))
        .isEmpty();
    SliceClaim elsewhere = claim("node-a", Phase.Bound, GpuMode.Green, List.of(0));
    elsewhere.getStatus().getBinding().setGpuUuid("GPU-not-here");
    assertThat(ClaimWatcher.boundHere(elsewhere, "node-a", backend)).isEmpty();
  }

  @Test
  void servesResizesAndReleasesClaimsAsTheirStatusChanges() throws Exception {
    AgentOptions options =
        AgentOptions.of(
            "node-a", directory.resolve("run"), directory.resolve("state"), RunMode.IN_AGENT);
    try (Agent agent = Agent.start(options, client, backend, null)) {
      var claims = client.resources(SliceClaim.class).inNamespace("team");
      claims.resource(claim("node-a", Phase.Bound, GpuMode.Green, List.of(0, 1))).create();
      await(() -> agent.endpoint("team", "det").isPresent());
      assertThat(agent.endpoint("team", "det").orElseThrow().socket()).exists();

      SliceClaim resized = claims.withName("det").get();
      resized.getStatus().getBinding().setSmGroups(List.of(0, 1, 2, 3));
      claims.resource(resized).updateStatus();
      await(() -> agent.runtime("team", "det").map(r -> r.sms() == 32).orElse(false));

      String token = agent.issueToken("team", "det", "pod-1", "main");
      claims.withName("det").delete();
      await(() -> agent.endpoint("team", "det").isEmpty());

      // The deleted claim's tokens are gone: a claim made again under its name refuses them.
      agent.serve(new BoundClaim("team", "det", gpu, List.of(0), 1 << 20));
      Path socket = agent.endpoint("team", "det").orElseThrow().socket();
      assertThatThrownBy(() -> SmsliceClient.connect(socket, "team/det", token).close())
          .isInstanceOf(SmsliceException.class)
          .hasMessageContaining("UNAUTHORIZED");
    }
  }

  @Test
  void aClaimTheAgentCannotServeIsReportedWithWhyUntilItIsServedOrGone() throws Exception {
    AgentOptions options =
        AgentOptions.of(
            "node-a", directory.resolve("run"), directory.resolve("state"), RunMode.IN_AGENT);
    try (Agent agent = Agent.start(options, client, backend, null)) {
      var claims = client.resources(SliceClaim.class).inNamespace("team");
      // Group 99 is not in the GPU's split: its green context cannot be made.
      claims.resource(claim("node-a", Phase.Bound, GpuMode.Green, List.of(99))).create();
      await(() -> !agent.claimStatuses().isEmpty());
      io.smslice.agent.ClaimStatus failed = agent.claimStatuses().getFirst();
      assertThat(failed.key()).isEqualTo("team/det");
      assertThat(failed.serving()).isFalse();
      assertThat(failed.message()).isNotBlank();
      assertThat(failed.groups()).containsExactly(99);
      assertThat(agent.endpoint("team", "det")).isEmpty();

      SliceClaim fixed = claims.withName("det").get();
      fixed.getStatus().getBinding().setSmGroups(List.of(0, 1));
      claims.resource(fixed).updateStatus();
      await(() -> agent.claimStatuses().stream().anyMatch(s -> s.serving()));
      assertThat(agent.claimStatuses())
          .singleElement()
          .satisfies(s -> assertThat(s.groups()).containsExactly(0, 1));

      claims.withName("det").delete();
      await(() -> agent.claimStatuses().isEmpty());
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
