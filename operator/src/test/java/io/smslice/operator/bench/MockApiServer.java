package io.smslice.operator.bench;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.smslice.operator.it.Cluster;
import java.net.InetAddress;
import java.util.HashMap;

/**
 * fabric8's CRUD mock API server with the smslice CRDs, on a fixed port, until killed: for running
 * the packaged operator by hand without a cluster (args: port, default 18081).
 */
public final class MockApiServer {
  private MockApiServer() {}

  public static void main(String[] args) throws InterruptedException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 18081;
    var server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init(InetAddress.getLoopbackAddress(), port);
    Cluster.installCrds(server.createClient());
    System.out.println("mock API server: http://localhost:" + port);
    Thread.currentThread().join();
  }
}
