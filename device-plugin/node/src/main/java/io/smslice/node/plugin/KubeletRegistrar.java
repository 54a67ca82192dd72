package io.smslice.node.plugin;

import io.grpc.ManagedChannel;
import io.grpc.Status;
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

  /** A refusal that trying again cannot change: the kubelet rejects the request itself. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  /**
   * Registers; throws {@link Refused} when the kubelet rejects the resource name or the API
   * version, and IllegalStateException for anything worth retrying (the kubelet not answering, or
   * failing to dial the plugin back).
   */
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
      if (permanent(e.getStatus())) {
        throw new Refused(
            "the kubelet refused to register "
                + resourceName
                + ": "
                + e.getStatus().getDescription());
      }
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

  /**
   * The kubelet answers these two with a plain error (code UNKNOWN) whose text is all there is to
   * go by: "the ResourceName %q is invalid" and "requested API version %q is not supported by
   * kubelet".
   */
  private static boolean permanent(Status status) {
    String d = status.getDescription();
    return status.getCode() == Status.Code.UNKNOWN
        && d != null
        && ((d.startsWith("the ResourceName ") && d.endsWith(" is invalid"))
            || d.contains(" is not supported by kubelet"));
  }
}
