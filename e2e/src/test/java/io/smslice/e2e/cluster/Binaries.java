package io.smslice.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The upstream binaries the local cluster runs (Kubernetes, etcd, containerd, helm), built from
 * their Go modules by tools/build.sh into a cache outside the repository, once per set of versions.
 */
public record Binaries(Path bin) {

  public static Binaries fromTools(Path repo) throws IOException, InterruptedException {
    String given = System.getenv("SMSLICE_TOOLS_BIN");
    Path bin =
        given != null && !given.isBlank()
            ? Path.of(given)
            : Path.of(
                Command.of("bash", repo.resolve("tools/build.sh").toString())
                    .withTimeout(Duration.ofMinutes(90))
                    .check()
                    .strip());
    Binaries binaries = new Binaries(bin);
    for (String name :
        new String[] {
          "etcd", "kube-apiserver", "kubelet", "kubectl", "kubeadm", "containerd", "helm"
        }) {
      if (!Files.isExecutable(binaries.path(name))) {
        throw new IOException(
            name
                + " is missing in "
                + bin
                + ": run tools/build.sh (it needs Go and the Go module proxy)");
      }
    }
    return binaries;
  }

  public Path path(String name) {
    return bin.resolve(name);
  }

  public String get(String name) {
    return path(name).toString();
  }
}
