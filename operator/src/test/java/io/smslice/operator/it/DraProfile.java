package io.smslice.operator.it;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** The operator as the chart runs it with allocation.mode dra. */
public class DraProfile implements QuarkusTestProfile {
  @Override
  public Map<String, String> getConfigOverrides() {
    return Map.of("smslice.allocation", "dra");
  }
}
