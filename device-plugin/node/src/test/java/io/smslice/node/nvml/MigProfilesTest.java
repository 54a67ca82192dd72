package io.smslice.node.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MigProfilesTest {
  @Test
  void readsTheProfileFromTheMigDeviceName() {
    assertThat(MigProfiles.fromName("NVIDIA H200 MIG 1g.18gb")).hasValue("1g.18gb");
    assertThat(MigProfiles.fromName("NVIDIA H200 MIG 1g.18gb+me")).hasValue("1g.18gb+me");
    assertThat(MigProfiles.fromName("NVIDIA H200")).isEmpty();
  }

  @Test
  void rebuildsItFromSlicesAndMemoryOtherwise() {
    assertThat(MigProfiles.fromSlices(3, 71 * 1024 + 300)).isEqualTo("3g.71gb");
  }
}
