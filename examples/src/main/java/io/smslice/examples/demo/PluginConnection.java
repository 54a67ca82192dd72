package io.smslice.examples.demo;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.smslice.node.kubelet.v1beta1.AllocateRequest;
import io.smslice.node.kubelet.v1beta1.AllocateResponse;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateResponse;
import io.smslice.node.kubelet.v1beta1.ContainerPreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.DevicePluginGrpc;
import io.smslice.node.kubelet.v1beta1.DevicePluginOptions;
import io.smslice.node.kubelet.v1beta1.Empty;
import io.smslice.node.kubelet.v1beta1.ListAndWatchResponse;
import io.smslice.node.kubelet.v1beta1.PreStartContainerRequest;
import io.smslice.node.kubelet.v1beta1.PreferredAllocationRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * The demo kubelet's side of one registered device plugin: the device list it streams, which
 * devices are given to which pod, and the allocation calls, all over the plugin's Unix socket.
 */
final class PluginConnection implements AutoCloseable {
  /** What Allocate said to put into the container. */
  record Allocation(Map<String, String> envs, List<ContainerRuntime.HostMount> mounts) {}

  private final String resource;
  private final DevicePluginOptions options;
  private final IntConsumer healthyCount;
  private final Consumer<String> log;
  private final ManagedChannel channel;
  private final Map<String, String> health = new LinkedHashMap<>();
  private final Map<String, List<String>> allocated = new LinkedHashMap<>();

  PluginConnection(
      Path socket,
      String resource,
      DevicePluginOptions options,
      IntConsumer healthyCount,
      Consumer<String> log) {
    this.resource = resource;
    this.options = options;
    this.healthyCount = healthyCount;
    this.log = log;
    this.channel =
        Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
  }

  /** Opens the ListAndWatch stream; every answer replaces the device list. */
  void watch() {
    DevicePluginGrpc.newStub(channel)
        .listAndWatch(
            Empty.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(ListAndWatchResponse response) {
                int healthy;
                synchronized (PluginConnection.this) {
                  health.clear();
                  for (Device device : response.getDevicesList()) {
                    health.put(device.getID(), device.getHealth());
                  }
                  healthy = (int) health.values().stream().filter("Healthy"::equals).count();
                }
                healthyCount.accept(healthy);
              }

              @Override
              public void onError(Throwable t) {
                if (!channel.isShutdown()) {
                  log.accept(
                      "kubelet: ListAndWatch for "
                          + resource
                          + " ended: "
                          + t.getMessage()
                          + (t.getCause() == null ? "" : " (" + t.getCause() + ")"));
                }
              }

              @Override
              public void onCompleted() {}
            });
  }

  /**
   * Picks {@code count} free healthy devices (the plugin's preference when it offers one, as the
   * kubelet does), calls Allocate and, if the plugin asked for it, PreStartContainer.
   */
  Allocation allocate(String pod, int count) {
    List<String> free = freeDevices();
    if (free.size() < count) {
      throw new IllegalStateException(
          "node has " + free.size() + " free " + resource + ", pod " + pod + " needs " + count);
    }
    List<String> chosen = free.subList(0, count);
    var blocking =
        DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    if (options.getGetPreferredAllocationAvailable()) {
      List<String> preferred =
          blocking
              .getPreferredAllocation(
                  PreferredAllocationRequest.newBuilder()
                      .addContainerRequests(
                          ContainerPreferredAllocationRequest.newBuilder()
                              .addAllAvailableDeviceIDs(free)
                              .setAllocationSize(count))
                      .build())
              .getContainerResponses(0)
              .getDeviceIDsList();
      if (preferred.size() == count && new HashSet<>(free).containsAll(preferred)) {
        chosen = preferred;
      }
    }
    synchronized (this) {
      allocated.put(pod, List.copyOf(chosen));
    }
    AllocateResponse response =
        blocking.allocate(
            AllocateRequest.newBuilder()
                .addContainerRequests(
                    ContainerAllocateRequest.newBuilder().addAllDevicesIds(chosen))
                .build());
    if (options.getPreStartRequired()) {
      blocking.preStartContainer(
          PreStartContainerRequest.newBuilder().addAllDevicesIds(chosen).build());
    }
    ContainerAllocateResponse container = response.getContainerResponses(0);
    List<ContainerRuntime.HostMount> mounts = new ArrayList<>();
    container
        .getMountsList()
        .forEach(
            m ->
                mounts.add(
                    new ContainerRuntime.HostMount(
                        m.getContainerPath(), Path.of(m.getHostPath()), m.getReadOnly())));
    return new Allocation(container.getEnvsMap(), mounts);
  }

  synchronized void release(String pod) {
    allocated.remove(pod);
  }

  private synchronized List<String> freeDevices() {
    Set<String> used = new HashSet<>();
    allocated.values().forEach(used::addAll);
    return health.entrySet().stream()
        .filter(e -> "Healthy".equals(e.getValue()) && !used.contains(e.getKey()))
        .map(Map.Entry::getKey)
        .toList();
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
