package io.smslice.node.plugin;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** gRPC client channels over Unix domain sockets, and stopping the servers that listen on them. */
public final class UnixSockets {
  private UnixSockets() {}

  public static ManagedChannel channel(Path socket) {
    return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }

  /**
   * Shuts the server down, giving calls in flight two seconds before cancelling them; does nothing
   * for null.
   */
  public static void stop(Server server) {
    if (server == null) {
      return;
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
