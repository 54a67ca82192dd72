package io.smslice.operator.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

class MetricsProducer {
  @Produces
  @Singleton
  SliceMetrics sliceMetrics(MeterRegistry registry) {
    return new SliceMetrics(registry);
  }
}
