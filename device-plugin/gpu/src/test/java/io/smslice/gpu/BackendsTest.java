package io.smslice.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.gpu.cuda.CudaBackend;
import org.junit.jupiter.api.Test;

class BackendsTest {
  @Test
  void autoUsesCudaOnlyWhenTheDriverShowsADevice() {
    boolean cudaUsable = CudaBackend.open(new StringBuilder()).map(b -> true).orElse(false);
    try (GpuBackend backend = Backends.open("auto")) {
      assertThat(backend.backendName()).isEqualTo(cudaUsable ? "cuda" : "simulated");
      assertThat(backend.simulated()).isEqualTo(!cudaUsable);
    }
  }

  @Test
  void cudaWithoutADriverSaysHowToFixIt() {
    if (CudaBackend.open(new StringBuilder()).isPresent()) {
      return;
    }
    assertThatThrownBy(() -> Backends.open("cuda"))
        .hasMessageContaining("backend cuda requested")
        .hasMessageContaining("backend: simulated");
  }

  @Test
  void unknownNamesAreRejected() {
    assertThatThrownBy(() -> Backends.open("opencl"))
        .hasMessageContaining("use auto, cuda or simulated");
  }
}
