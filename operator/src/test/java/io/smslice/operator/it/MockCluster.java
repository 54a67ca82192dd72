package io.smslice.operator.it;

import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.util.function.Consumer;

/** Prepares fabric8's CRUD mock API server before the operator starts: the CRDs. */
public class MockCluster implements Consumer<KubernetesServer> {
  @Override
  public void accept(KubernetesServer server) {
    Cluster.installCrds(server.getClient());
  }
}
