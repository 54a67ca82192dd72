package io.smslice.node.plugin;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.smslice.node.kubelet.v1beta1.AllocateRequest;
import io.smslice.node.kubelet.v1beta1.AllocateResponse;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerPreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.ContainerPreferredAllocationResponse;
import io.smslice.node.kubelet.v1beta1.DevicePluginGrpc;
import io.smslice.node.kubelet.v1beta1.DevicePluginOptions;
import io.smslice.node.kubelet.v1beta1.Empty;
import io.smslice.node.kubelet.v1beta1.ListAndWatchResponse;
import io.smslice.node.kubelet.v1beta1.PreStartContainerRequest;
import io.smslice.node.kubelet.v1beta1.PreStartContainerResponse;
import io.smslice.node.kubelet.v1beta1.PreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.PreferredAllocationResponse;
import io.smslice.node.metrics.NodeMetrics;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The DevicePlugin gRPC service for one resource. Every failure becomes a gRPC status with a
 * message for the kubelet; nothing here ends the process.
 */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {
  private static final Logger LOG = Logger.getLogger(DevicePluginService.class.getName());
  static final DevicePluginOptions OPTIONS =
      DevicePluginOptions.newBuilder()
          .setPreStartRequired(false)
          .setGetPreferredAllocationAvailable(true)
          .build();

  private final ResourceManager manager;
  private final NodeMetrics metrics;
  private final Set<StreamObserver<ListAndWatchResponse>> watchers = ConcurrentHashMap.newKeySet();

  DevicePluginService(ResourceManager manager, NodeMetrics metrics) {
    this.manager = manager;
    this.metrics = metrics;
    manager.addListener(this::sendToWatchers);
  }

  @Override
  public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> response) {
    response.onNext(OPTIONS);
    response.onCompleted();
  }

  @Override
  public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> response) {
    if (response instanceof ServerCallStreamObserver<ListAndWatchResponse> call) {
      call.setOnCancelHandler(() -> watchers.remove(response));
    }
    synchronized (response) {
      watchers.add(response);
      response.onNext(current());
    }
  }

  private ListAndWatchResponse current() {
    return ListAndWatchResponse.newBuilder().addAllDevices(manager.devices()).build();
  }

  private void sendToWatchers() {
    ListAndWatchResponse list = current();
    for (StreamObserver<ListAndWatchResponse> w : watchers) {
      synchronized (w) {
        try {
          w.onNext(list);
        } catch (RuntimeException e) {
          LOG.log(Level.FINE, "ListAndWatch stream gone", e);
          watchers.remove(w);
        }
      }
    }
  }

  /** Ends every ListAndWatch stream, so that the kubelet notices the plugin going away. */
  void closeWatchers() {
    for (StreamObserver<ListAndWatchResponse> w : watchers) {
      synchronized (w) {
        try {
          w.onCompleted();
        } catch (RuntimeException e) {
          LOG.log(Level.FINE, "ListAndWatch stream already gone", e);
        }
      }
    }
    watchers.clear();
  }

  @Override
  public void getPreferredAllocation(
      PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> response) {
    Optional<String> invalid = AllocateInputs.invalidPreference(request);
    if (invalid.isPresent()) {
      LOG.warning(
          "GetPreferredAllocation refused for " + manager.resourceName() + ": " + invalid.get());
      response.onError(Status.INVALID_ARGUMENT.withDescription(invalid.get()).asRuntimeException());
      return;
    }
    try {
      PreferredAllocationResponse.Builder out = PreferredAllocationResponse.newBuilder();
      for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
        out.addContainerResponses(
            ContainerPreferredAllocationResponse.newBuilder()
                .addAllDeviceIDs(
                    manager.preferred(
                        c.getAvailableDeviceIDsList(),
                        c.getMustIncludeDeviceIDsList(),
                        c.getAllocationSize())));
      }
      response.onNext(out.build());
      response.onCompleted();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "GetPreferredAllocation failed for " + manager.resourceName(), e);
      response.onError(Status.INTERNAL.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  @Override
  public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> response) {
    Optional<String> invalid = AllocateInputs.invalidAllocate(request);
    if (invalid.isPresent()) {
      metrics.allocation(manager.resourceName(), "refused");
      LOG.warning("Allocate refused for " + manager.resourceName() + ": " + invalid.get());
      response.onError(Status.INVALID_ARGUMENT.withDescription(invalid.get()).asRuntimeException());
      return;
    }
    try {
      AllocateResponse.Builder out =
          AllocateResponse.newBuilder()
              .addAllContainerResponses(
                  manager.allocate(
                      request.getContainerRequestsList().stream()
                          .<List<String>>map(ContainerAllocateRequest::getDevicesIdsList)
                          .toList()));
      metrics.allocation(manager.resourceName(), "ok");
      response.onNext(out.build());
      response.onCompleted();
    } catch (AllocationException e) {
      metrics.allocation(manager.resourceName(), "refused");
      LOG.warning("Allocate refused for " + manager.resourceName() + ": " + e.getMessage());
      response.onError(
          Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
    } catch (RuntimeException e) {
      metrics.allocation(manager.resourceName(), "error");
      LOG.log(Level.SEVERE, "Allocate failed for " + manager.resourceName(), e);
      response.onError(
          Status.INTERNAL
              .withDescription("smslice node side failed: " + e.getMessage())
              .asRuntimeException());
    }
  }

  @Override
  public void preStartContainer(
      PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> response) {
    // Announced as not required; answered anyway so that a kubelet that calls it gets success.
    response.onNext(PreStartContainerResponse.getDefaultInstance());
    response.onCompleted();
  }
}
