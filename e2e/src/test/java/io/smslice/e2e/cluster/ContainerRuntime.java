package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * containerd with its CRI plugin and runc under the kubelet, pod networking by the standard CNI
 * bridge plugin. No registry can be reached here: every image the cluster runs is imported from an
 * OCI archive, the pod sandbox ("pause") image too.
 */
final class ContainerRuntime {
  static final String SANDBOX_IMAGE = "localhost/smslice/sandbox:e2e";
  private final Binaries bin;
  private final Path dir;
  private final Path socket;
  private final String podCidr;
  private final String bridge;
  private final List<String> prefix;
  private Daemon daemon;

  /**
   * @param podCidr the node's pod addresses, on its own bridge
   * @param prefix what containerd is started under (a node's mount namespace), or nothing
   */
  ContainerRuntime(Binaries bin, Path dir, String podCidr, String bridge, List<String> prefix) {
    this.bin = bin;
    this.dir = dir;
    this.socket = dir.resolve("containerd.sock");
    this.podCidr = podCidr;
    this.bridge = bridge;
    this.prefix = List.copyOf(prefix);
  }

  String endpoint() {
    return "unix://" + socket;
  }

  Daemon start(Path logs) throws IOException, InterruptedException {
    Path cni = dir.resolve("cni");
    Files.createDirectories(cni);
    Files.writeString(
        cni.resolve("10-smslice-e2e.conflist"),
        """
        {"cniVersion": "1.0.0", "name": "smslice-e2e", "plugins": [
          {"type": "bridge", "bridge": "%s", "isGateway": true, "ipMasq": true, "hairpinMode": true,
           "ipam": {"type": "host-local", "dataDir": "%s", "ranges": [[{"subnet": "%s"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
          {"type": "portmap", "capabilities": {"portMappings": true}}]}
        """
            .formatted(bridge, dir.resolve("cni-ipam"), podCidr));
    Path config = dir.resolve("config.toml");
    Files.writeString(
        config,
        """
        version = 3
        root = "%1$s/root"
        state = "%1$s/state"
        [grpc]
          address = "%2$s"
        [plugins.'io.containerd.cri.v1.images']
          [plugins.'io.containerd.cri.v1.images'.pinned_images]
            sandbox = "%3$s"
        [plugins.'io.containerd.cri.v1.runtime']
          # This machine refuses to lower a process's oom_score_adj (the kubelet asks -998 for sandboxes).
          restrict_oom_score_adj = true
          [plugins.'io.containerd.cri.v1.runtime'.containerd]
            default_runtime_name = "runc"
            [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
              runtime_type = "io.containerd.runc.v2"
              [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
                BinaryName = "/usr/sbin/runc"
          [plugins.'io.containerd.cri.v1.runtime'.cni]
            bin_dirs = ["/usr/lib/cni"]
            conf_dir = "%4$s"
        """
            .formatted(dir, socket, SANDBOX_IMAGE, cni));
    // The shim is found on PATH, next to containerd.
    String path = bin.bin() + ":" + System.getenv("PATH");
    List<String> command = new java.util.ArrayList<>(prefix);
    command.addAll(List.of(bin.get("containerd"), "--config", config.toString()));
    String name = prefix.isEmpty() ? "containerd" : "containerd-" + bridge;
    daemon = new Daemon(name, logs.resolve(name + ".log"), command, Map.of("PATH", path)).start();
    Wait.until(
        Duration.ofSeconds(60),
        "containerd serving on " + socket,
        daemon,
        () -> Files.exists(socket) && ctr("version").run().ok());
    return daemon;
  }

  /**
   * Imports OCI archives into the namespace the kubelet's pods use, as `ctr images import` does on
   * a node.
   */
  void importImages(List<Path> archives) throws IOException, InterruptedException {
    for (Path archive : archives) {
      ctr("images", "import", "--no-unpack=false", archive.toString())
          .withTimeout(Duration.ofMinutes(5))
          .check();
    }
  }

  Command ctr(String... args) {
    return Command.of(bin.get("ctr"), "--address", socket.toString(), "--namespace", "k8s.io")
        .plus(List.of(args));
  }
}
