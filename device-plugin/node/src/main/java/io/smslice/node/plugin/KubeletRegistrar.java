package io.smslice.node.plugin;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.smslice.node.kubelet.v1beta1.RegisterRequest;
import io.smslice.node.kubelet.v1beta1.RegistrationGrpc;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Announces a plugin to the kubelet over kubelet.sock. */
final class KubeletRegistrar {
  static final String API_VERSION = "v1beta1";
  static final String KUBELET_SOCKET = "kubelet.sock";

  private final Path kubeletSocket;

  KubeletRegistrar(Path devicePluginDirectory) {
    this.kubeletSocket = devicePluginDirectory.resolve(KUBELET_SOCKET);
  }

  Path kubeletSocket() {
    return kubeletSocket;
  }

  /** Registers; throws with the kubelet's answer when it refuses or cannot be reached. */
  void register(String resourceName, Path pluginSocket) {
    ManagedChannel channel = UnixSockets.channel(kubeletSocket);
    try {
      RegistrationGrpc.newBlockingStub(channel)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .register(
              RegisterRequest.newBuilder()
                  .setVersion(API_VERSION)
                  .setEndpoint(pluginSocket.getFileName().toString())
                  .setResourceName(resourceName)
                  .setOptions(DevicePluginService.OPTIONS)
                  .build());
    } catch (StatusRuntimeException e) {
      throw new IllegalStateException(
          "kubelet at "
              + kubeletSocket
              + " did not register "
              + resourceName
              + ": "
              + e.getStatus(),
          e);
    } finally {
      channel.shutdownNow();
    }
  }
}
