package io.smslice.operator.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

class Clocks {
  @Produces
  @Singleton
  Clock clock() {
    return Clock.systemUTC();
  }
}
