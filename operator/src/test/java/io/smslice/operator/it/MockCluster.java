package io.smslice.operator.it;

import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Prepares fabric8's CRUD mock API server before the operator starts: the CRDs, and a recorder for
 * pods/binding calls (the mock stores objects but has no scheduler subresource of its own).
 */
public class MockCluster implements Consumer<KubernetesServer> {
  /** Bodies of every POST .../pods/NAME/binding the operator made. */
  public static final List<String> BINDINGS = new CopyOnWriteArrayList<>();

  @Override
  public void accept(KubernetesServer server) {
    Cluster.installCrds(server.getClient());
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + Cluster.NS + "/pods/" + "sched-pod" + "/binding")
        .andReply(
            201,
            request -> {
              BINDINGS.add(request.getBody().readUtf8());
              return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\"}";
            })
        .always();
  }
}
