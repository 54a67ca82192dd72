package io.smslice.agent.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.text.MessageFormat;
import org.junit.jupiter.api.Test;

/** The pin warning shows its claim and reason (seen on the H200 machine as a literal "{1}"). */
class SessionLogTest {
  @Test
  void thePinWarningNamesTheClaimAndTheReason() {
    assertThat(MessageFormat.format(Session.PIN_FAILED, "team/a", "CUDA_ERROR_NOT_PERMITTED"))
        .isEqualTo(
            "claim team/a: cannot pin the session's shared memory (CUDA_ERROR_NOT_PERMITTED);"
                + " copies will be slower");
  }
}
