package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.gpu.GpuException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the node publishes per claim: served, or not served and why, until served or released. */
class ClaimStatusTest {
  private static final String NO_SUCH_GPU = "GPU-00000000-dead-4000-8000-000000000000";

  @TempDir Path tmp;

  @Test
  void aClaimTheAgentCannotServeIsListedWithWhyUntilItIsServed() throws Exception {
    try (AgentFixture f = new AgentFixture(tmp)) {
      f.serve("detector", List.of(0, 1), AgentFixture.GIB);
      BoundClaim lost = new BoundClaim("team", "lost", NO_SUCH_GPU, List.of(2), AgentFixture.GIB);
      assertThatThrownBy(() -> f.agent.serve(lost)).isInstanceOf(GpuException.class);

      assertThat(f.agent.claimStatuses())
          .extracting(s -> s.key() + " " + s.serving())
          .containsExactlyInAnyOrder("team/detector true", "team/lost false");
      ClaimStatus failed =
          f.agent.claimStatuses().stream().filter(s -> !s.serving()).findFirst().orElseThrow();
      assertThat(failed.message()).isNotBlank();
      assertThat(failed.gpuUuid()).isEqualTo(NO_SUCH_GPU);
      assertThat(failed.groups()).containsExactly(2);

      f.agent.serve(new BoundClaim("team", "lost", f.gpu, List.of(2), AgentFixture.GIB));
      assertThat(f.agent.claimStatuses()).hasSize(2).allMatch(ClaimStatus::serving);
    }
  }

  @Test
  void releasingAClaimThatFailedForgetsIt() {
    try (AgentFixture f = new AgentFixture(tmp)) {
      BoundClaim lost = new BoundClaim("team", "lost", NO_SUCH_GPU, List.of(2), AgentFixture.GIB);
      assertThatThrownBy(() -> f.agent.serve(lost)).isInstanceOf(GpuException.class);
      f.agent.release("team", "lost");
      assertThat(f.agent.claimStatuses()).isEmpty();
    }
  }
}
