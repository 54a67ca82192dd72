package io.smslice.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Extended resource names as the kubelet checks them at registration (an extended resource name:
 * not in a kubernetes.io domain, no "requests." prefix, and "requests." + name a qualified name, so
 * a DNS-1123 subdomain prefix and a name part of at most 63 characters).
 */
class ResourceNamesTest {
  @TempDir Path dir;

  private NodeConfig load(String sm) throws Exception {
    Files.writeString(
        dir.resolve("default.yaml"), "version: v1\nresourceNames: {sm: '" + sm + "'}\n");
    return new ConfigLoader(List.of("--config-dir=" + dir), Map.of()).load(Optional.empty());
  }

  private static String repeat(char c, int n) {
    return String.valueOf(c).repeat(n);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "mykubernetes.io/sm",
        "kubernetes.io/sm",
        "node.kubernetes.io/sm",
        "requests.example.com/sm",
        "sm",
        "/sm",
        "example.com/",
        "example.com/a/b",
        "Example.com/sm",
        "a..b/sm",
        "-a.com/sm",
        "a-.com/sm",
        "example.com/-sm",
        "example.com/sm-",
        "example.com/s m",
        "example.com/s:m",
      })
  void namesTheKubeletRefusesAreRejected(String name) {
    assertThatThrownBy(() -> load(name))
        .isInstanceOf(ConfigException.class)
        .message()
        .contains("resourceNames.sm is '" + name + "'")
        .contains("the kubelet would refuse it");
  }

  @Test
  void overLongPartsAreRejectedWithTheLimit() {
    assertThatThrownBy(() -> load("example.com/" + repeat('s', 64)))
        .message()
        .contains("at most 63");
    // "requests." + prefix must stay within 253 characters.
    String prefix245 =
        repeat('a', 63) + "." + repeat('b', 63) + "." + repeat('c', 63) + "." + repeat('d', 53);
    assertThat(prefix245).hasSize(245);
    assertThatThrownBy(() -> load(prefix245 + "/sm")).message().contains("at most 244");
  }

  @Test
  void namesTheKubeletAcceptsAreKept() throws Exception {
    String prefix244 =
        repeat('a', 63) + "." + repeat('b', 63) + "." + repeat('c', 63) + "." + repeat('d', 52);
    for (String name :
        List.of(
            "smslice.io/sm",
            "example.com/SM_slices.v2",
            "a/b",
            "gpu.example.com/" + repeat('s', 63),
            prefix244 + "/sm",
            "kubernetes.iox/sm")) {
      assertThat(load(name).resourceNames().sm()).isEqualTo(name);
    }
  }
}
