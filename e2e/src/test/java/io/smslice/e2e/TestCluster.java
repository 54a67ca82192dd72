package io.smslice.e2e;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.smslice.e2e.cluster.Binaries;
import io.smslice.e2e.cluster.ClusterNode;
import io.smslice.e2e.cluster.Command;
import io.smslice.e2e.cluster.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The cluster every E2E test runs against, started once per test run: the local single-node
 * cluster, or the cluster whose kubeconfig SMSLICE_E2E_KUBECONFIG names (then nothing is started or
 * stopped, and the images must already be in a registry its nodes pull from: docs/development.md).
 */
public final class TestCluster implements AutoCloseable {
  /** A GPU node's name at the length most providers' names reach (63: it is also a label value). */
  public static final String NODE = "gpu-node-" + "a".repeat(63 - "gpu-node-".length() - 2) + "-0";

  public final Path repo;
  public final Binaries bin;
  public final Path kubeconfig;
  public final KubernetesClient client;
  private final LocalCluster local;

  private TestCluster(Path repo, Binaries bin, Path kubeconfig, LocalCluster local)
      throws IOException {
    this.repo = repo;
    this.bin = bin;
    this.kubeconfig = kubeconfig;
    this.local = local;
    this.client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
            .build();
  }

  static TestCluster start() throws Exception {
    Path repo = Path.of(System.getProperty("smslice.repo.dir", "..")).toAbsolutePath().normalize();
    Binaries bin = Binaries.fromTools(repo);
    String external = System.getenv("SMSLICE_E2E_KUBECONFIG");
    if (external != null && !external.isBlank()) {
      return new TestCluster(repo, bin, Path.of(external), null);
    }
    List<Path> images;
    try (Stream<Path> files = Files.list(Path.of(System.getProperty("smslice.e2e.images")))) {
      images = files.filter(f -> f.toString().endsWith(".tar")).sorted().toList();
    }
    LocalCluster local =
        LocalCluster.start(
            bin,
            ClusterNode.asCloudProvidersMakeThem(NODE),
            Path.of(System.getProperty("smslice.e2e.logs")),
            images);
    return new TestCluster(repo, bin, local.adminKubeconfig(), local);
  }

  /** The one cluster of this test run (JUnit's root store closes it when every test has run). */
  public static TestCluster of(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(
            TestCluster.class,
            k -> {
              try {
                return start();
              } catch (Exception e) {
                throw new IllegalStateException(
                    "the test cluster did not start: " + e.getMessage(), e);
              }
            },
            TestCluster.class);
  }

  public boolean isLocal() {
    return local != null;
  }

  public LocalCluster local() {
    if (local == null) {
      throw new IllegalStateException(
          "this test needs the local cluster (it restarts its daemons)");
    }
    return local;
  }

  public Command kubectl(String... args) {
    return Command.of(bin.get("kubectl"), "--kubeconfig", kubeconfig.toString())
        .plus(List.of(args));
  }

  public Command helm(String... args) {
    return Command.of(bin.get("helm"), "--kubeconfig", kubeconfig.toString())
        .plus(List.of(args))
        .withEnvironment(
            Map.of(
                "HELM_CACHE_HOME",
                "/tmp/smslice-e2e-helm/cache",
                "HELM_CONFIG_HOME",
                "/tmp/smslice-e2e-helm/config",
                "HELM_DATA_HOME",
                "/tmp/smslice-e2e-helm/data"));
  }

  /**
   * What a failed test shows: the daemons' and the smslice pods' logs, and what the cluster holds.
   */
  public String diagnostics() {
    StringBuilder out = new StringBuilder();
    for (String[] args :
        new String[][] {
          {"get", "nodes,pods,slc,slicenodes", "-A", "-o", "wide"},
          {"get", "events", "-A", "--sort-by=.lastTimestamp"},
          {
            "logs",
            "-n",
            Install.NAMESPACE,
            "-l",
            "app.kubernetes.io/component=operator",
            "--tail=80",
            "--prefix"
          },
          {
            "logs",
            "-n",
            Install.NAMESPACE,
            "-l",
            "app.kubernetes.io/component=node",
            "--tail=80",
            "--prefix"
          }
        }) {
      try {
        Command.Result r = kubectl(args).run();
        out.append("$ kubectl ")
            .append(String.join(" ", args))
            .append('\n')
            .append(r.stdout())
            .append(r.stderr());
      } catch (Exception e) {
        out.append("(").append(e.getMessage()).append(")\n");
      }
    }
    if (local != null) {
      out.append(local.logTails(30));
    }
    return out.toString();
  }

  @Override
  public void close() throws Exception {
    client.close();
    // SMSLICE_E2E_KEEP=true leaves the local cluster running after the tests, to look at it.
    if (local != null && !Boolean.parseBoolean(System.getenv("SMSLICE_E2E_KEEP"))) {
      local.close();
    }
  }
}
