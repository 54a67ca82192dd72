package io.smslice.charts;

import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.VersionInfo;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * An in-process Kubernetes API (fabric8's mock server, CRUD mode) for Helm to talk to. The embedded
 * Helm of helm-java answers the chart's {@code lookup} calls from a cluster even when rendering, so
 * the tests give it this one: empty for a first install, holding the previous Secret for an
 * upgrade.
 */
final class MockCluster implements AutoCloseable {
  private final KubernetesMockServer server;

  MockCluster(String kubeMajor, String kubeMinor) {
    Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
    VersionInfo version =
        new VersionInfo.Builder()
            .withMajor(kubeMajor)
            .withMinor(kubeMinor)
            .withGitVersion("v" + kubeMajor + "." + kubeMinor + ".0")
            .build();
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            expectations,
            new KubernetesMixedDispatcher(expectations),
            false,
            version);
    server.init();
    // Helm's lookup asks discovery which resource a kind is before it gets the object.
    server
        .expect()
        .get()
        .withPath("/api/v1?timeout=32s")
        .andReturn(
            200,
            new APIResourceListBuilder()
                .withGroupVersion("v1")
                .addToResources(
                    new APIResourceBuilder()
                        .withName("secrets")
                        .withKind("Secret")
                        .withNamespaced(true)
                        .withVerbs("get", "list", "create", "update", "delete")
                        .build())
                .build())
        .always();
  }

  String kubeconfig() {
    String url = server.url("/").replaceAll("/$", "");
    return """
        apiVersion: v1
        kind: Config
        clusters: [{name: mock, cluster: {server: "%s"}}]
        contexts: [{name: mock, context: {cluster: mock, user: mock}}]
        current-context: mock
        users: [{name: mock, user: {token: test}}]
        """
        .formatted(url);
  }

  KubernetesClient client() {
    return server.createClient();
  }

  @Override
  public void close() {
    server.destroy();
  }
}
