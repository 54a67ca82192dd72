package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real single-node Kubernetes on this machine: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, kube-proxy and a kubelet over containerd and runc, all upstream binaries
 * (tools/build.sh). Its state lives under {@link #STATE} and the kubelet's default root, removed at
 * start and stop; it needs root.
 */
public final class LocalCluster implements AutoCloseable {
  static final String SERVICE_CIDR = "10.96.0.0/16";

  /** Every node's pods are in it: node n has 10.244.n.0/24 on its own bridge. */
  static final String CLUSTER_CIDR = "10.244.0.0/16";

  static final Path STATE = Path.of("/var/lib/smslice-e2e");

  /** The kubelet's default root: the chart's default device-plugin path lies under it. */
  static final Path KUBELET_ROOT = Path.of("/var/lib/kubelet");

  /** What the node side leaves on a node (the chart's default host paths, the DRA CDI specs). */
  static final List<Path> NODE_SIDE_PATHS =
      List.of(Path.of("/run/smslice"), Path.of("/var/lib/smslice"), Path.of("/run/cdi"));

  private final Binaries bin;
  private final ClusterNode node;
  private final Path logs;
  private final List<Daemon> daemons = new ArrayList<>();
  private final List<ClusterNode> moreNodes = new ArrayList<>();
  private final java.util.Map<String, Daemon> kubelets = new java.util.HashMap<>();
  private List<Path> images;
  private String ip;
  private Daemon kubelet;
  private Daemon containerd;
  private Pki pki;
  private ContainerRuntime runtime;

  private LocalCluster(Binaries bin, ClusterNode node, Path logs) {
    this.bin = bin;
    this.node = node;
    this.logs = logs;
  }

  /** Starts the cluster with one node and the given images imported into its container runtime. */
  public static LocalCluster start(Binaries bin, ClusterNode node, Path logs, List<Path> images)
      throws Exception {
    Host.requireRoot();
    LocalCluster cluster = new LocalCluster(bin, node, logs);
    try {
      cluster.boot(images);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static List<Path> trees() {
    List<Path> trees = new ArrayList<>(List.of(STATE, KUBELET_ROOT));
    trees.addAll(NODE_SIDE_PATHS);
    return trees;
  }

  private void boot(List<Path> images) throws Exception {
    this.images = List.copyOf(images);
    Leftovers.remove(trees());
    Host.enableForwarding();
    Host.shareMounts();
    ip = Host.address();
    pki = Pki.create(bin, STATE.resolve("pki"), node.name(), ip);

    runtime = new ContainerRuntime(bin, STATE.resolve("containerd"), podCidr(0), "cni0", List.of());
    containerd = runtime.start(logs);
    daemons.add(containerd);
    runtime.importImages(images);

    Daemon etcd =
        daemon(
            "etcd",
            bin.get("etcd"),
            "--data-dir",
            STATE.resolve("etcd").toString(),
            "--listen-client-urls",
            "http://127.0.0.1:2379",
            "--advertise-client-urls",
            "http://127.0.0.1:2379",
            "--listen-peer-urls",
            "http://127.0.0.1:2380",
            "--listen-metrics-urls",
            "http://127.0.0.1:2381",
            "--unsafe-no-fsync");
    Wait.until(
        Duration.ofSeconds(60),
        "etcd healthy",
        etcd,
        () -> Command.of("curl", "-fsS", "http://127.0.0.1:2379/health").run().ok());

    Daemon apiserver =
        daemon(
            "kube-apiserver",
            bin.get("kube-apiserver"),
            "--etcd-servers=http://127.0.0.1:2379",
            "--advertise-address=" + ip,
            "--secure-port=6443",
            "--service-cluster-ip-range=" + SERVICE_CIDR,
            "--allow-privileged=true",
            "--authorization-mode=Node,RBAC",
            "--enable-admission-plugins=NodeRestriction",
            "--client-ca-file=" + pki.path("ca.crt"),
            "--tls-cert-file=" + pki.path("apiserver.crt"),
            "--tls-private-key-file=" + pki.path("apiserver.key"),
            "--kubelet-client-certificate=" + pki.path("apiserver-kubelet-client.crt"),
            "--kubelet-client-key=" + pki.path("apiserver-kubelet-client.key"),
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file=" + pki.path("sa.pub"),
            "--service-account-signing-key-file=" + pki.path("sa.key"),
            "--requestheader-client-ca-file=" + pki.path("front-proxy-ca.crt"),
            "--proxy-client-cert-file=" + pki.path("front-proxy-client.crt"),
            "--proxy-client-key-file=" + pki.path("front-proxy-client.key"),
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            // No kube-proxy on the API server's own path: webhooks are called at their Service's
            // endpoints.
            "--enable-aggregator-routing=true",
            // Node names need not resolve here: the API server reaches kubelets at their
            // InternalIP.
            "--kubelet-preferred-address-types=InternalIP,Hostname");
    Wait.until(
        Duration.ofMinutes(2),
        "kube-apiserver ready",
        apiserver,
        () -> kubectl("get", "--raw", "/readyz").run().ok());
    // As kubeadm binds it: the API server's client identity may use the kubelet API (exec, logs).
    kubectl(
            "create",
            "clusterrolebinding",
            "kubeadm:kube-apiserver-kubelet-client",
            "--clusterrole=system:kubelet-api-admin",
            "--user=kube-apiserver-kubelet-client")
        .check();

    daemon(
        "kube-controller-manager",
        bin.get("kube-controller-manager"),
        "--kubeconfig=" + pki.path("controller-manager.conf"),
        "--authentication-kubeconfig=" + pki.path("controller-manager.conf"),
        "--authorization-kubeconfig=" + pki.path("controller-manager.conf"),
        "--use-service-account-credentials=true",
        "--service-account-private-key-file=" + pki.path("sa.key"),
        "--root-ca-file=" + pki.path("ca.crt"),
        "--cluster-signing-cert-file=" + pki.path("ca.crt"),
        "--cluster-signing-key-file=" + pki.path("ca.key"),
        "--leader-elect=false",
        "--bind-address=127.0.0.1");
    daemon(
        "kube-scheduler",
        bin.get("kube-scheduler"),
        "--kubeconfig=" + pki.path("scheduler.conf"),
        "--authentication-kubeconfig=" + pki.path("scheduler.conf"),
        "--authorization-kubeconfig=" + pki.path("scheduler.conf"),
        "--leader-elect=false",
        "--bind-address=127.0.0.1");
    daemon(
        "kube-proxy",
        bin.get("kube-proxy"),
        "--kubeconfig=" + pki.path("super-admin.conf"),
        "--proxy-mode=iptables",
        "--cluster-cidr=" + CLUSTER_CIDR,
        "--hostname-override=" + node.name(),
        "--conntrack-max-per-core=0",
        "--metrics-bind-address=127.0.0.1:10249");

    kubelet = startKubelet(node, 0, runtime, pki.file("kubelet.conf"), List.of(), STATE);
  }

  /**
   * Adds a node: its own containerd and kubelet in a {@link NodeNamespace} on this machine, with
   * the same images; returns once it is Ready.
   */
  public void addNode(ClusterNode more) throws Exception {
    int index = moreNodes.size() + 1;
    moreNodes.add(more);
    Path dir = STATE.resolve("nodes").resolve(more.name());
    NodeNamespace ns = NodeNamespace.create(dir);
    ContainerRuntime own =
        new ContainerRuntime(
            bin, dir.resolve("containerd"), podCidr(index), "cni" + index, ns.prefix());
    daemons.add(own.start(logs));
    own.importImages(images);
    Path kubeconfig = pki.kubeletKubeconfig(bin, more.name(), ip, dir.resolve("pki"));
    kubelets.put(more.name(), startKubelet(more, index, own, kubeconfig, ns.prefix(), dir));
  }

  private static String podCidr(int node) {
    return "10.244." + node + ".0/24";
  }

  /** Node n's kubelet listens on ports of its own (10250 + 20n, healthz 10248 + 20n). */
  private Daemon startKubelet(
      ClusterNode which,
      int index,
      ContainerRuntime on,
      Path kubeconfig,
      List<String> prefix,
      Path dir)
      throws Exception {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(
        List.of(
            bin.get("kubelet"),
            "--config=" + kubeletConfig(which, index, on, dir),
            "--kubeconfig=" + kubeconfig,
            "--hostname-override=" + which.name(),
            "--node-ip=" + ip));
    if (!which.labels().isEmpty()) {
      command.add("--node-labels=" + which.labelFlag());
    }
    String name = index == 0 ? "kubelet" : "kubelet-" + which.name();
    Daemon started = new Daemon(name, logs.resolve(name + ".log"), command, Map.of()).start();
    daemons.add(started);
    Wait.until(
        Duration.ofMinutes(2),
        "node " + which.name() + " Ready",
        started,
        () ->
            "True"
                .equals(
                    kubectl(
                            "get",
                            "node",
                            which.name(),
                            "-o",
                            "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")
                        .run()
                        .stdout()
                        .strip()));
    return started;
  }

  private String kubeletConfig(ClusterNode which, int index, ContainerRuntime on, Path dir)
      throws IOException {
    Path file = dir.resolve("kubelet.yaml");
    Files.createDirectories(dir);
    Files.writeString(
        file,
        """
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        port: %d
        healthzPort: %d
        authentication:
          anonymous: {enabled: false}
          webhook: {enabled: true}
          x509: {clientCAFile: %s}
        authorization: {mode: Webhook}
        containerRuntimeEndpoint: %s
        # This machine mounts cgroup v1 controllers (hybrid mode): a test node, not a production one.
        cgroupDriver: cgroupfs
        failCgroupV1: false
        cgroupsPerQOS: false
        enforceNodeAllocatable: []
        failSwapOn: false
        # No registry is reachable: the imported images must never be collected.
        imageGCHighThresholdPercent: 100
        imageGCLowThresholdPercent: 99
        evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
        serializeImagePulls: false
        resolvConf: /etc/resolv.conf
        """
                .formatted(
                    10250 + 20 * index, 10248 + 20 * index, pki.path("ca.crt"), on.endpoint())
            + which.taintsYaml());
    return file.toString();
  }

  private Daemon daemon(String name, String... command) throws IOException {
    Daemon d = new Daemon(name, logs.resolve(name + ".log"), List.of(command), Map.of()).start();
    daemons.add(d);
    return d;
  }

  public ClusterNode node() {
    return node;
  }

  public Path adminKubeconfig() {
    return pki.adminKubeconfig();
  }

  public Command kubectl(String... args) {
    return Command.of(bin.get("kubectl"), "--kubeconfig", adminKubeconfig().toString())
        .plus(List.of(args));
  }

  public Daemon kubelet() {
    return kubelet;
  }

  /** The kubelet of a node {@link #addNode} added. */
  public Daemon kubelet(String nodeName) {
    return kubelets.get(nodeName);
  }

  /** Whether {@link #addNode} added a node of that name. */
  public boolean hasNode(String name) {
    return moreNodes.stream().anyMatch(n -> n.name().equals(name));
  }

  public List<Daemon> daemons() {
    return List.copyOf(daemons);
  }

  /** The last lines of every daemon's log: what a failed test shows. */
  public String logTails(int lines) {
    StringBuilder all = new StringBuilder();
    for (Daemon d : daemons) {
      all.append("---- ")
          .append(d.name())
          .append(d.alive() ? "" : " (exited)")
          .append('\n')
          .append(d.tail(lines))
          .append('\n');
    }
    return all.toString();
  }

  @Override
  public void close() throws Exception {
    for (Daemon d : daemons.reversed()) {
      d.stop(Duration.ofSeconds(15));
    }
    Leftovers.remove(trees());
  }
}
