package io.smslice.node.testing;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.smslice.node.kubelet.v1beta1.AllocateRequest;
import io.smslice.node.kubelet.v1beta1.AllocateResponse;
import io.smslice.node.kubelet.v1beta1.ContainerAllocateRequest;
import io.smslice.node.kubelet.v1beta1.ContainerPreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.Device;
import io.smslice.node.kubelet.v1beta1.DevicePluginGrpc;
import io.smslice.node.kubelet.v1beta1.Empty;
import io.smslice.node.kubelet.v1beta1.ListAndWatchResponse;
import io.smslice.node.kubelet.v1beta1.PreferredAllocationRequest;
import io.smslice.node.kubelet.v1beta1.RegisterRequest;
import io.smslice.node.kubelet.v1beta1.RegistrationGrpc;
import io.smslice.node.plugin.UnixSockets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A kubelet's device manager, as far as plugins see it: serves Registration on kubelet.sock, and
 * for each registration dials the plugin's socket with the real v1beta1 proto, follows its
 * ListAndWatch stream and makes Allocate calls on request. {@link #restart()} behaves like a
 * kubelet restart: the directory is emptied and kubelet.sock created anew.
 */
public final class FakeKubelet implements AutoCloseable {
  private final Path directory;
  private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
  private final Map<String, Plugin> plugins = new ConcurrentHashMap<>();
  private final java.util.Set<String> refused = ConcurrentHashMap.newKeySet();
  private Server server;

  /** One registered plugin: its request, channel and the latest device list. */
  public static final class Plugin {
    final RegisterRequest request;
    final Instant registeredAt = Instant.now();
    final ManagedChannel channel;
    volatile List<Device> devices;
    volatile int updates;

    Plugin(RegisterRequest request, ManagedChannel channel) {
      this.request = request;
      this.channel = channel;
    }

    public Instant registeredAt() {
      return registeredAt;
    }

    public RegisterRequest request() {
      return request;
    }
  }

  public FakeKubelet(Path directory) throws IOException {
    this(directory, List.of());
  }

  /** A kubelet that refuses, from its first moment, to register these resource names. */
  public FakeKubelet(Path directory, List<String> refusedNames) throws IOException {
    this.directory = directory;
    refused.addAll(refusedNames);
    start();
  }

  private void start() throws IOException {
    Files.createDirectories(directory);
    server =
        NettyServerBuilder.forAddress(
                new DomainSocketAddress(directory.resolve("kubelet.sock").toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .addService(new Registration())
            .build()
            .start();
  }

  private final class Registration extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void register(
        RegisterRequest request, StreamObserver<io.smslice.node.kubelet.v1beta1.Empty> response) {
      // The kubelet answers a refusal with a plain error (gRPC code UNKNOWN) and these texts.
      if (!request.getVersion().equals("v1beta1")) {
        response.onError(
            io.grpc.Status.UNKNOWN
                .withDescription(
                    "requested API version \""
                        + request.getVersion()
                        + "\" is not supported by kubelet. Supported version is \"v1beta1\"")
                .asRuntimeException());
        return;
      }
      if (refused.contains(request.getResourceName())) {
        response.onError(
            io.grpc.Status.UNKNOWN
                .withDescription(
                    "the ResourceName \"" + request.getResourceName() + "\" is invalid")
                .asRuntimeException());
        return;
      }
      Plugin plugin =
          new Plugin(request, UnixSockets.channel(directory.resolve(request.getEndpoint())));
      Plugin old = plugins.put(request.getResourceName(), plugin);
      if (old != null) {
        old.channel.shutdownNow();
      }
      // The watch outlives this Register call, so it must not inherit the call's context.
      io.grpc.Context.ROOT.run(() -> watch(plugin));
      response.onNext(Empty.getDefaultInstance());
      response.onCompleted();
    }

    private void watch(Plugin plugin) {
      DevicePluginGrpc.newStub(plugin.channel)
          .listAndWatch(
              Empty.getDefaultInstance(),
              new StreamObserver<>() {
                @Override
                public void onNext(ListAndWatchResponse value) {
                  plugin.devices = value.getDevicesList();
                  plugin.updates++;
                }

                @Override
                public void onError(Throwable t) {}

                @Override
                public void onCompleted() {}
              });
    }
  }

  /** A blocking stub on a registered plugin's socket, for requests the helpers do not build. */
  public DevicePluginGrpc.DevicePluginBlockingStub stub(String resource) {
    return DevicePluginGrpc.newBlockingStub(plugins.get(resource).channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  /** Waits until the resource is registered (after {@code since}) and has sent a device list. */
  /** The resources registered now. */
  public java.util.Set<String> resources() {
    return java.util.Set.copyOf(plugins.keySet());
  }

  public Plugin awaitPlugin(String resource, Instant since, Duration timeout) {
    return await(
        () -> {
          Plugin p = plugins.get(resource);
          return p != null && p.devices != null && !p.registeredAt.isBefore(since) ? p : null;
        },
        timeout,
        "plugin " + resource + " registered after " + since);
  }

  /** Waits until the resource's latest device list satisfies {@code condition}. */
  public List<Device> awaitDevices(
      String resource, Predicate<List<Device>> condition, Duration timeout) {
    return await(
        () -> {
          Plugin p = plugins.get(resource);
          return p != null && p.devices != null && condition.test(p.devices) ? p.devices : null;
        },
        timeout,
        "device list of " + resource);
  }

  public AllocateResponse allocate(String resource, List<String> deviceIds) {
    return DevicePluginGrpc.newBlockingStub(plugins.get(resource).channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .allocate(
            AllocateRequest.newBuilder()
                .addContainerRequests(
                    ContainerAllocateRequest.newBuilder().addAllDevicesIds(deviceIds))
                .build());
  }

  public List<String> preferred(String resource, List<String> available, int size) {
    return DevicePluginGrpc.newBlockingStub(plugins.get(resource).channel)
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .getPreferredAllocation(
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(available)
                        .setAllocationSize(size))
                .build())
        .getContainerResponses(0)
        .getDeviceIDsList();
  }

  /** Like a kubelet restart: stop, empty the directory, serve a new kubelet.sock. */
  public void restart() throws IOException {
    stopServer();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
    }
    start();
  }

  private void stopServer() {
    plugins.values().forEach(p -> p.channel.shutdownNow());
    plugins.clear();
    server.shutdownNow();
    try {
      server.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static <T> T await(java.util.function.Supplier<T> probe, Duration timeout, String what) {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      T value = probe.get();
      if (value != null) {
        return value;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
    throw new AssertionError("timed out after " + timeout + " waiting for " + what);
  }

  @Override
  public void close() {
    stopServer();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
