package io.smslice.interposer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The interposer defines dlsym for every process it is loaded into (all of a claim's containers),
 * so lookups that have nothing to do with CUDA must behave exactly as without it.
 */
class DlsymTest {
  @Test
  void dlsymRtldNextStillMeansAfterTheCallerForOtherWrappersAndPrograms() throws Exception {
    ProgramRun run = ProgramRun.run(Map.of(), "next_like");

    assertThat(run.exitCode()).isZero();
    assertThat(run.lines()).containsExactly("wrapped-getpid 1", "next-getpid 1");
    assertThat(run.stderr()).isEmpty();
  }
}
