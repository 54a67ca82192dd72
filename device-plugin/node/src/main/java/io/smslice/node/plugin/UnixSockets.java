package io.smslice.node.plugin;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Path;

/** gRPC client channels over Unix domain sockets. */
public final class UnixSockets {
  private UnixSockets() {}

  public static ManagedChannel channel(Path socket) {
    return Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }
}
