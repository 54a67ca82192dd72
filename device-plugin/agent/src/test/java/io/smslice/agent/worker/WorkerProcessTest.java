package io.smslice.agent.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 11: a timed-out request's late answer is never the next request's. A stopped
 * worker answers every request at once with an error, not after the request timeout.
 */
class WorkerProcessTest {
  @Test
  void everyRequestToAnExitedWorkerFailsAtOnce() throws Exception {
    WorkerProcess worker =
        WorkerProcess.start(
            EchoWorker.class.getName(),
            List.of("backend", "team", "w"),
            Map.of(),
            code -> {},
            Duration.ofSeconds(20));
    worker.close();
    for (int i = 0; i < 3; i++) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> worker.request("processes"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("exited");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void aLateAnswerIsDroppedNotTakenForTheNextRequest() throws Exception {
    try (WorkerProcess worker =
        WorkerProcess.start(
            EchoWorker.class.getName(),
            List.of("backend", "team", "w"),
            Map.of(),
            code -> {},
            Duration.ofMillis(300))) {
      assertThatThrownBy(() -> worker.request("slow metrics"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("within 300 ms");
      Thread.sleep(1700); // the late answer has arrived by now

      assertThat(worker.request("metrics")).isEqualTo("metrics");
      assertThat(worker.request("processes")).isEqualTo("processes");
    }
  }
}
