package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.client.Arg;
import io.smslice.client.Handles.Kernel;
import io.smslice.client.Handles.Stream;
import io.smslice.client.SmsliceClient;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the simulated GPU a tenant reads its session's modelled GPU time from the shared header, so
 * that it can tell a frame's GPU-side latency from the delays of the host it runs on.
 */
class ModelledGpuTimeTest {
  /** 1.856 cycles/ns (the simulated clock's calibration): one wave of this spin takes ~1 ms. */
  private static final long ONE_MILLISECOND_OF_CYCLES = 1_856_000;

  @TempDir Path directory;

  @Test
  void aSessionSeesTheModelledTimeOfItsKernelsAfterASync() throws Exception {
    try (AgentFixture fixture = new AgentFixture(directory)) {
      fixture.serve("det", List.of(0, 1), 1 << 20);
      try (SmsliceClient client = fixture.connect("det")) {
        Kernel spin = client.kernel(client.loadModule(AgentFixture.KERNELS), "spin");
        Stream stream = client.createStream();
        assertThat(client.modelledGpuNanos()).hasValue(0);

        for (int i = 0; i < 3; i++) {
          client.launch(spin, stream, 16, 32, Arg.i64(ONE_MILLISECOND_OF_CYCLES));
        }
        client.synchronize(stream);

        // Three kernels one after the other on the slice's free SMs: 3 ms of modelled GPU time,
        // however long the host took to run them.
        assertThat(client.modelledGpuNanos().orElseThrow()).isBetween(2_990_000L, 3_010_000L);
      }
    }
  }
}
