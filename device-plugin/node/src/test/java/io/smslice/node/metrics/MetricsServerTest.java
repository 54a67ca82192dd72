package io.smslice.node.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsServerTest {
  @Test
  void servesCountersAndGaugesInPrometheusTextFormat() throws Exception {
    NodeMetrics metrics = new NodeMetrics();
    metrics.allocation("smslice.io/sm", "ok");
    metrics.allocation("smslice.io/sm", "ok");
    metrics.gauge("smslice_node_gpu_healthy", "GPU health.", () -> Map.of("gpu=\"GPU-1\"", 1.0));
    try (MetricsServer server = new MetricsServer(0, metrics)) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://localhost:" + server.port() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body())
          .contains("# TYPE smslice_node_allocations_total counter")
          .contains("smslice_node_allocations_total{resource=\"smslice.io/sm\",result=\"ok\"} 2")
          .contains("# TYPE smslice_node_gpu_healthy gauge")
          .contains("smslice_node_gpu_healthy{gpu=\"GPU-1\"} 1.0");
    }
  }
}
