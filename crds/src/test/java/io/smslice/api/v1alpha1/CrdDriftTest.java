package io.smslice.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Fails when the checked-in CRD YAML differs from what the API types generate. To update it after
 * changing a type: {@code ./mvnw -pl crds test -Dtest=CrdDriftTest -Dsmslice.crds.update=true}.
 */
class CrdDriftTest {
  @Test
  void checkedInCrdsMatchTheTypes() throws IOException {
    Path generated = GeneratedCrds.generate();
    boolean update = Boolean.getBoolean("smslice.crds.update");
    for (String file : GeneratedCrds.FILES) {
      String fresh = GeneratedCrds.read(generated, file);
      Path checkedIn = GeneratedCrds.CHECKED_IN.resolve(file);
      if (update) {
        Files.writeString(checkedIn, fresh);
      }
      assertThat(checkedIn).as("crds/%s is stale: regenerate it (see CrdDriftTest)", file).exists();
      assertThat(Files.readString(checkedIn))
          .as("crds/%s differs from the API types: regenerate it (see CrdDriftTest)", file)
          .isEqualTo(fresh);
    }
  }
}
