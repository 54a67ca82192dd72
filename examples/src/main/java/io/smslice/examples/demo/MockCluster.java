package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The demo's Kubernetes API: fabric8's mock server in CRUD mode, serving real HTTP on localhost,
 * with the smslice CRDs registered and one Node. It stores and watches objects like an API server
 * but runs no controllers, no admission webhooks and no validation.
 */
final class MockCluster implements AutoCloseable {
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private MockCluster(KubernetesMockServer server) {
    this.server = server;
    this.client = server.createClient();
  }

  static MockCluster start() throws IOException {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new ApiServerBehaviour(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    return new MockCluster(server);
  }

  /** Registers every CRD found in the given directory (the repository's crds/). */
  List<String> registerCrds(Path crdDirectory) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(crdDirectory)) {
      files = list.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
    }
    if (files.isEmpty()) {
      throw new IOException("no CRD files (*.yml) in " + crdDirectory);
    }
    for (Path file : files) {
      try (InputStream in = Files.newInputStream(file)) {
        CustomResourceDefinition crd =
            client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
      }
    }
    return files.stream().map(p -> p.getFileName().toString()).toList();
  }

  /** A Node as a GPU node's kubelet would register it (the demo kubelet adds GPU capacity). */
  void createNode(String name) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(
                    Map.of("kubernetes.io/hostname", name, "nvidia.com/gpu.present", "true"))
                .endMetadata()
                .withNewStatus()
                .withCapacity(Map.of("cpu", new Quantity("16"), "memory", new Quantity("64Gi")))
                .withAllocatable(Map.of("cpu", new Quantity("16"), "memory", new Quantity("64Gi")))
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build())
        .create();
  }

  /** The API server's URL, for processes outside this JVM (the operator). */
  String url() {
    return "http://" + server.getHostName() + ":" + server.getPort();
  }

  KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
