package io.smslice.node.plugin;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.smslice.node.kubelet.v1beta1.DevicePluginGrpc;
import io.smslice.node.kubelet.v1beta1.Empty;
import io.smslice.node.metrics.NodeMetrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One resource's DevicePlugin gRPC server on its Unix socket. Start removes a stale socket, serves,
 * then dials the socket itself, so that registration only happens once the kubelet can connect.
 */
final class PluginServer {
  private final ResourceManager manager;
  private final Path socket;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  // One service for the server's whole life: it subscribes to device changes once, and each
  // restart (a new socket after a kubelet restart) serves the same instance.
  private final DevicePluginService service;
  private Server server;

  PluginServer(
      ResourceManager manager,
      Path directory,
      EventLoopGroup boss,
      EventLoopGroup workers,
      NodeMetrics metrics) {
    this.manager = manager;
    this.socket = directory.resolve(manager.socketName());
    this.boss = boss;
    this.workers = workers;
    this.service = new DevicePluginService(manager, metrics);
  }

  Path socket() {
    return socket;
  }

  ResourceManager manager() {
    return manager;
  }

  synchronized void start() throws IOException {
    Files.createDirectories(socket.getParent());
    Files.deleteIfExists(socket);
    server =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(boss)
            .workerEventLoopGroup(workers)
            .addService(service)
            .build()
            .start();
    ManagedChannel self = UnixSockets.channel(socket);
    try {
      DevicePluginGrpc.newBlockingStub(self)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .withWaitForReady()
          .getDevicePluginOptions(Empty.getDefaultInstance());
    } catch (RuntimeException e) {
      stop();
      throw new IOException("plugin socket " + socket + " does not answer: " + e.getMessage(), e);
    } finally {
      self.shutdownNow();
    }
  }

  synchronized void stop() {
    if (server == null) {
      return;
    }
    service.closeWatchers();
    UnixSockets.stop(server);
    server = null;
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      // the kubelet may already have removed it; nothing else depends on it
    }
  }
}
