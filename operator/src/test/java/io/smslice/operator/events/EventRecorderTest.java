package io.smslice.operator.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 12.15: a repeated event is counted and its time moves, not frozen at the first one. */
@EnableKubernetesMockClient(crud = true)
class EventRecorderTest {
  KubernetesClient client;

  @Test
  void aRepeatedEventIsAggregated() {
    var object =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("obj")
            .withNamespace("ev")
            .withUid("uid-obj")
            .endMetadata()
            .build();
    Instant t0 = Instant.parse("2026-12-01T00:00:00Z");
    new EventRecorder(client, Clock.fixed(t0, ZoneOffset.UTC)).warning(object, "Waiting", "why");
    Instant t1 = t0.plusSeconds(90);
    var later = new EventRecorder(client, Clock.fixed(t1, ZoneOffset.UTC));
    later.warning(object, "Waiting", "why");
    later.warning(object, "Waiting", "why");
    later.warning(object, "Other", "else");

    List<Event> events = client.v1().events().inNamespace("ev").list().getItems();
    assertThat(events).hasSize(2);
    Event waiting =
        events.stream().filter(e -> e.getReason().equals("Waiting")).findFirst().orElseThrow();
    assertThat(waiting.getCount()).isEqualTo(3);
    assertThat(waiting.getFirstTimestamp()).isEqualTo(t0.toString());
    assertThat(waiting.getLastTimestamp()).isEqualTo(t1.toString());
  }
}
