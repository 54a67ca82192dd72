package io.smslice.node.dra.kubelet;

import io.grpc.stub.StreamObserver;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.kubelet.pluginregistration.v1.InfoRequest;
import io.smslice.node.kubelet.pluginregistration.v1.PluginInfo;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationStatus;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationStatusResponse;
import io.smslice.node.metrics.NodeMetrics;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * The registration socket's service: the kubelet's plugin watcher asks what plugin this is (a DRA
 * driver, its endpoint, the gRPC services it offers) and then says whether it registered it.
 */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger LOG = Logger.getLogger(RegistrationService.class.getName());

  /** The kubelet's type for DRA drivers. */
  static final String PLUGIN_TYPE = "DRAPlugin";

  /** "<gRPC package tail>.<service>" of every service on the endpoint, the DRA service first. */
  static final String DRA_V1_SERVICE = "v1.DRAPlugin";

  static final String HEALTH_SERVICE = "v1alpha1.DRAResourceHealth";

  private final Path endpoint;
  private final NodeMetrics metrics;
  private final AtomicReference<RegistrationStatus> last = new AtomicReference<>();

  RegistrationService(Path endpoint, NodeMetrics metrics) {
    this.endpoint = endpoint;
    this.metrics = metrics;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    response.onNext(
        PluginInfo.newBuilder()
            .setType(PLUGIN_TYPE)
            .setName(DraDriver.NAME)
            .setEndpoint(endpoint.toString())
            .addSupportedVersions(DRA_V1_SERVICE)
            .addSupportedVersions(HEALTH_SERVICE)
            .build());
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
    last.set(status);
    if (status.getPluginRegistered()) {
      metrics.draRegistration("registered");
      LOG.info("the kubelet registered DRA driver " + DraDriver.NAME + " at " + endpoint);
    } else {
      metrics.draRegistration("refused");
      LOG.severe(
          "the kubelet refused DRA driver "
              + DraDriver.NAME
              + ": "
              + status.getError()
              + " (the kubelet must serve DRA v1: Kubernetes 1.34 or newer)");
    }
    response.onNext(RegistrationStatusResponse.getDefaultInstance());
    response.onCompleted();
  }

  /** The kubelet's last word on the registration, or null before it spoke. */
  RegistrationStatus lastStatus() {
    return last.get();
  }
}
