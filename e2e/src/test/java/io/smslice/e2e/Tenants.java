package io.smslice.e2e;

import io.smslice.e2e.cluster.Wait;
import java.time.Duration;
import java.util.UUID;

/** A namespace per test class for its tenants, at the Pod Security level the test names. */
public final class Tenants {
  private Tenants() {}

  public static String namespace(TestCluster cluster, String prefix, String podSecurityLevel)
      throws Exception {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
    cluster.kubectl("create", "namespace", name).check();
    cluster
        .kubectl(
            "label", "namespace", name, "pod-security.kubernetes.io/enforce=" + podSecurityLevel)
        .check();
    return name;
  }

  /**
   * Deletes the namespace and waits until it is gone, so the next test class finds the GPU free.
   */
  public static void delete(TestCluster cluster, String namespace) throws Exception {
    if (namespace != null) {
      cluster.kubectl("delete", "namespace", namespace, "--wait=true", "--timeout=180s").check();
    }
  }

  /**
   * Waits for a client-library example workload to report kernels run through its claim's agent
   * (its five-second report line, with launches counted), in its log of the last {@code window}.
   */
  public static void awaitKernels(
      TestCluster cluster, String namespace, String pod, Duration window) {
    Wait.until(
        Duration.ofMinutes(3),
        "pod " + namespace + "/" + pod + " running kernels",
        () -> {
          String log =
              cluster
                  .kubectl("logs", "-n", namespace, pod, "--since=" + window.toSeconds() + "s")
                  .run()
                  .stdout();
          return log.lines().anyMatch(l -> l.matches(".*launches=[1-9].*"));
        });
  }
}
