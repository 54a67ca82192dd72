package io.smslice.node.dra.kubelet;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.smslice.node.kubelet.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.smslice.node.kubelet.drahealth.v1alpha1.DeviceHealth;
import io.smslice.node.kubelet.drahealth.v1alpha1.DeviceIdentifier;
import io.smslice.node.kubelet.drahealth.v1alpha1.HealthStatus;
import io.smslice.node.kubelet.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.smslice.node.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The devices' health for the kubelet's NodeWatchResources stream: every device at once when the
 * kubelet subscribes, then again on every change and every {@code resend} (the kubelet reads a
 * device it has not heard of for {@code health_check_timeout_seconds} as unknown).
 */
final class DraHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
  private static final Logger LOG = Logger.getLogger(DraHealthService.class.getName());

  /** How often every stream hears all devices again; the kubelet's timeout is three times this. */
  static final Duration RESEND = Duration.ofSeconds(10);

  private final Supplier<List<DeviceCondition>> devices;
  private final Set<StreamObserver<NodeWatchResourcesResponse>> watchers =
      ConcurrentHashMap.newKeySet();

  DraHealthService(Supplier<List<DeviceCondition>> devices) {
    this.devices = devices;
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> response) {
    if (response instanceof ServerCallStreamObserver<NodeWatchResourcesResponse> call) {
      call.setOnCancelHandler(() -> watchers.remove(response));
    }
    watchers.add(response);
    send(response, now());
  }

  /** Sends every device's health to every watcher. */
  void broadcast() {
    NodeWatchResourcesResponse now = now();
    watchers.forEach(w -> send(w, now));
  }

  private NodeWatchResourcesResponse now() {
    long seconds = System.currentTimeMillis() / 1000;
    NodeWatchResourcesResponse.Builder out = NodeWatchResourcesResponse.newBuilder();
    for (DeviceCondition d : devices.get()) {
      out.addDevices(
          DeviceHealth.newBuilder()
              .setDevice(
                  DeviceIdentifier.newBuilder().setPoolName(d.pool()).setDeviceName(d.device()))
              .setHealth(d.healthy() ? HealthStatus.HEALTHY : HealthStatus.UNHEALTHY)
              .setLastUpdatedTime(seconds)
              .setHealthCheckTimeoutSeconds(3 * RESEND.toSeconds())
              .setMessage(d.message() == null ? "" : d.message()));
    }
    return out.build();
  }

  private void send(
      StreamObserver<NodeWatchResourcesResponse> watcher, NodeWatchResourcesResponse r) {
    // One stream's messages must not interleave: the kubelet's and the resend's may race.
    synchronized (watcher) {
      try {
        watcher.onNext(r);
      } catch (RuntimeException e) {
        watchers.remove(watcher);
        LOG.log(Level.FINE, "a health watcher went away", e);
      }
    }
  }

  /** Ends every stream (the plugin stops); the kubelet reopens it when the plugin is back. */
  void close() {
    watchers.forEach(
        w -> {
          synchronized (w) {
            try {
              w.onCompleted();
            } catch (RuntimeException e) {
              LOG.log(Level.FINE, "closing a health watcher", e);
            }
          }
        });
    watchers.clear();
  }
}
