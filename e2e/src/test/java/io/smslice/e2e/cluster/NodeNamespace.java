package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine as a further node sees it: a mount namespace in which the host paths a node owns (the
 * kubelet's root, the node side's run and state folders, the CDI specs, the pod logs) are that
 * node's own folders, while everything else is the host's. Its containerd and kubelet run inside
 * it, so the containers they start, the smslice node pod's hostPath mounts among them, see the same
 * view, as on a machine of their own. The network is the host's.
 */
final class NodeNamespace {
  /** Host paths each node has for itself. */
  static final List<Path> PER_NODE =
      List.of(
          LocalCluster.KUBELET_ROOT,
          Path.of("/run/smslice"),
          Path.of("/var/lib/smslice"),
          Path.of("/run/cdi"),
          Path.of("/var/log/pods"),
          Path.of("/var/log/containers"));

  private final Path file;

  private NodeNamespace(Path file) {
    this.file = file;
  }

  /** Makes the namespace, kept by a bind mount under {@code dir}, with the node's folders there. */
  static NodeNamespace create(Path dir) throws IOException, InterruptedException {
    // A namespace is kept by bind-mounting it onto a file whose mount is private.
    Path holder = dir.resolve("ns");
    Files.createDirectories(holder);
    Command.of("mount", "--bind", holder.toString(), holder.toString()).check();
    Command.of("mount", "--make-private", holder.toString()).check();
    Path file = holder.resolve("mnt");
    Files.createFile(file);
    // Slave: mounts the host makes still reach it, its own stay inside.
    Command.of("unshare", "--mount=" + file, "--propagation", "slave", "true").check();
    NodeNamespace ns = new NodeNamespace(file);
    for (Path shared : PER_NODE) {
      Path own = dir.resolve("host" + shared);
      Files.createDirectories(own);
      Files.createDirectories(shared);
      ns.run("mount", "--bind", own.toString(), shared.toString()).check();
      // Shared within the node, as systemd mounts a node's root: pods' Bidirectional mounts (the
      // node side's MPS tmpfs) reach the node's other containers.
      ns.run("mount", "--make-rshared", shared.toString()).check();
    }
    return ns;
  }

  /** The command line prefix that runs a program inside the namespace. */
  List<String> prefix() {
    return List.of("nsenter", "--mount=" + file, "--");
  }

  Command run(String... command) {
    List<String> argv = new ArrayList<>(prefix());
    argv.addAll(List.of(command));
    return Command.of(argv.toArray(String[]::new));
  }
}
