package io.smslice.e2e.cluster;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;

/**
 * What the local cluster needs of the machine it runs on: root, an address pods can reach,
 * forwarding.
 */
final class Host {
  private Host() {}

  static void requireRoot() throws IOException, InterruptedException {
    if (!"0".equals(Command.of("id", "-u").check().strip())) {
      throw new IllegalStateException(
          "the local cluster runs a kubelet and containerd: run the suite as root, "
              + "or point it at a cluster with SMSLICE_E2E_KUBECONFIG (docs/development.md)");
    }
  }

  /**
   * The first up, non-loopback IPv4 address of a physical-looking interface: the API server
   * advertises it.
   */
  static String address() throws SocketException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      String name = nic.getName();
      if (!nic.isUp()
          || nic.isLoopback()
          || name.startsWith("cni")
          || name.startsWith("veth")
          || name.startsWith("podman")) {
        continue;
      }
      for (var address : Collections.list(nic.getInetAddresses())) {
        if (address instanceof Inet4Address) {
          return address.getHostAddress();
        }
      }
    }
    throw new IllegalStateException(
        "no non-loopback IPv4 address: the API server needs one that pods can reach");
  }

  /**
   * Mount propagation as systemd sets it on every Kubernetes node: the root shared, so that a pod's
   * Bidirectional mounts (the node side's MPS tmpfs) reach the host.
   */
  static void shareMounts() throws IOException, InterruptedException {
    Command.of("mount", "--make-rshared", "/").check();
  }

  /** Routing between pods, the bridge and services, as every Kubernetes node sets it. */
  static void enableForwarding() throws IOException {
    Files.writeString(Path.of("/proc/sys/net/ipv4/ip_forward"), "1");
    Path bridged = Path.of("/proc/sys/net/bridge/bridge-nf-call-iptables");
    if (Files.exists(bridged)) {
      Files.writeString(bridged, "1");
    }
  }
}
