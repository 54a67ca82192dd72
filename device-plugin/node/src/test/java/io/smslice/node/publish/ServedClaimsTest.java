package io.smslice.node.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.api.v1alpha1.node.ServedClaim;
import io.smslice.node.claims.ClaimState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SliceNode shows the SM groups the agent serves each claim on: what a user checks first. */
class ServedClaimsTest {
  @Test
  void eachServedClaimCarriesItsGroupsAndAMigOrMpsClaimNone() {
    List<ServedClaim> api =
        ServedClaims.toApi(
            List.of(
                new ClaimState("b", "green", "GPU-1", List.of(3, 4), true, null, List.of()),
                new ClaimState("a", "mig", "GPU-2", List.of(), true, null, List.of())));
    assertThat(api).extracting(ServedClaim::getName).containsExactly("mig", "green");
    assertThat(api.get(0).getSmGroups()).isNull();
    assertThat(api.get(1).getSmGroups()).containsExactly(3, 4);
  }
}
