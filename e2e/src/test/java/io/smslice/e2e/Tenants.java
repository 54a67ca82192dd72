package io.smslice.e2e;

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
}
