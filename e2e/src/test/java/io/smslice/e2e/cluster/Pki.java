package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The cluster's certificates and kubeconfigs, made by kubeadm's own phases (the same files and
 * identities a kubeadm cluster has: a CA, the API server's serving and kubelet-client certificates,
 * the service-account keys, and one client identity per component).
 */
record Pki(Path dir) {

  static Pki create(Binaries bin, Path dir, String nodeName, String hostIp)
      throws IOException, InterruptedException {
    Path file = dir.resolve("kubeadm.yaml");
    java.nio.file.Files.createDirectories(dir);
    java.nio.file.Files.writeString(file, config(dir, nodeName, hostIp));
    Command.of(bin.get("kubeadm"), "init", "phase", "certs", "all", "--config", file.toString())
        .check();
    Command.of(
            bin.get("kubeadm"),
            "init",
            "phase",
            "kubeconfig",
            "all",
            "--config",
            file.toString(),
            "--kubeconfig-dir",
            dir.toString())
        .check();
    return new Pki(dir);
  }

  /**
   * A kubelet kubeconfig for another node (identity system:node:{@code nodeName}, as a kubeadm join
   * gives it), in its own folder.
   */
  Path kubeletKubeconfig(Binaries bin, String nodeName, String hostIp, Path into)
      throws IOException, InterruptedException {
    java.nio.file.Files.createDirectories(into);
    Path file = into.resolve("kubeadm.yaml");
    java.nio.file.Files.writeString(file, config(dir, nodeName, hostIp));
    Command.of(
            bin.get("kubeadm"),
            "init",
            "phase",
            "kubeconfig",
            "kubelet",
            "--config",
            file.toString(),
            "--kubeconfig-dir",
            into.toString())
        .check();
    return into.resolve("kubelet.conf");
  }

  private static String config(Path dir, String nodeName, String hostIp) {
    return """
        apiVersion: kubeadm.k8s.io/v1beta4
        kind: InitConfiguration
        localAPIEndpoint:
          advertiseAddress: %s
          bindPort: 6443
        nodeRegistration:
          name: %s
        ---
        apiVersion: kubeadm.k8s.io/v1beta4
        kind: ClusterConfiguration
        certificatesDir: %s
        controlPlaneEndpoint: %s:6443
        networking:
          serviceSubnet: %s
        apiServer:
          certSANs: [127.0.0.1, localhost]
        """
        .formatted(hostIp, nodeName, dir, hostIp, LocalCluster.SERVICE_CIDR);
  }

  Path file(String name) {
    return dir.resolve(name);
  }

  String path(String name) {
    return file(name).toString();
  }

  /**
   * A cluster-admin kubeconfig (kubeadm's admin.conf: group kubeadm:cluster-admins, bound once the
   * API is up).
   */
  Path adminKubeconfig() {
    return file("super-admin.conf");
  }
}
