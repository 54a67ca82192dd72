package io.smslice.node.resources;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceIdsTest {
  private static final String A = "GPU-aaaaaaaa-0000-0000-0000-000000000000";
  private static final String B = "GPU-bbbbbbbb-0000-0000-0000-000000000000";

  @Test
  void idsNameTheirGpuAndIndexAndFitTheKubeletLimit() {
    assertThat(DeviceIds.sm(A, 131)).hasSizeLessThanOrEqualTo(63);
    assertThat(DeviceIds.gpuOf(DeviceIds.sm(A, 131))).isEqualTo(A);
    assertThat(DeviceIds.indexOf(DeviceIds.sm(A, 131))).isEqualTo(131);
    assertThat(DeviceIds.gpuOf(DeviceIds.mps(B, 99))).isEqualTo(B);
    assertThat(DeviceIds.gpuOf("MIG-0123")).isEqualTo("MIG-0123");
  }

  @Test
  void packingKeepsAContainerOnTheLikelyGpu() {
    List<String> available = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      available.add(DeviceIds.sm(A, i));
    }
    for (int i = 0; i < 8; i++) {
      available.add(DeviceIds.sm(B, i));
    }
    assertThat(GpuPacking.choose(available, List.of(), 8, B)).allMatch(id -> id.startsWith(B));
    // No likely GPU: the one with most free devices, lowest indexes first.
    assertThat(GpuPacking.choose(available, List.of(), 3, null))
        .containsExactly(DeviceIds.sm(A, 0), DeviceIds.sm(A, 1), DeviceIds.sm(A, 2));
    // Devices the kubelet insists on stay, and the rest come from their GPU.
    assertThat(GpuPacking.choose(available, List.of(DeviceIds.sm(B, 5)), 4, null))
        .hasSize(4)
        .startsWith(DeviceIds.sm(B, 5))
        .allMatch(id -> id.startsWith(B));
  }
}
