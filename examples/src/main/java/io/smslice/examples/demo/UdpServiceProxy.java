package io.smslice.examples.demo;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Stands in for a UDP Service and the kube-proxy that forwards it: listens on a loopback port (the
 * Service's address) and forwards every datagram to the loopback port its pod listens on. The demo
 * reads each datagram on its way (the PyTorch models' votes), so the table can show what the models
 * measured without changing the voter.
 */
final class UdpServiceProxy implements AutoCloseable {
  private final DatagramSocket front;
  private final DatagramSocket back;
  private final InetSocketAddress target;
  private final Thread thread;

  /**
   * @param targetPort the loopback port the Service's pod listens on
   * @param tap told each datagram as ASCII text before it is forwarded
   */
  UdpServiceProxy(int targetPort, Consumer<String> tap) throws SocketException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    front = new DatagramSocket(new InetSocketAddress(loopback, 0));
    front.setReceiveBufferSize(4 << 20);
    back = new DatagramSocket(new InetSocketAddress(loopback, 0));
    target = new InetSocketAddress(loopback, targetPort);
    thread =
        Thread.ofPlatform().daemon().name("udp-service-" + targetPort).start(() -> forward(tap));
  }

  /** The port the Service's clients send to. */
  int port() {
    return front.getLocalPort();
  }

  private void forward(Consumer<String> tap) {
    byte[] buffer = new byte[65_536];
    DatagramPacket in = new DatagramPacket(buffer, buffer.length);
    while (!front.isClosed()) {
      try {
        in.setLength(buffer.length);
        front.receive(in);
        back.send(new DatagramPacket(in.getData(), in.getOffset(), in.getLength(), target));
        tap.accept(
            new String(in.getData(), in.getOffset(), in.getLength(), StandardCharsets.US_ASCII));
      } catch (IOException e) {
        // Closed, or the pod's port is not bound yet (ICMP unreachable): the datagram is lost, as
        // it would be in a cluster.
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    front.close();
    back.close();
    thread.join(1000);
  }
}
