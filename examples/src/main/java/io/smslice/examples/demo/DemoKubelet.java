package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.grpc.Context;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.smslice.node.kubelet.v1beta1.Empty;
import io.smslice.node.kubelet.v1beta1.RegisterRequest;
import io.smslice.node.kubelet.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The demo's stand-in for the kubelet's device manager and container runtime, on one node. It
 * serves the kubelet's Registration service on kubelet.sock, talks to each registered plugin over
 * its Unix socket with the real v1beta1 protocol (ListAndWatch, GetPreferredAllocation, Allocate,
 * PreStartContainer), keeps the Node's extended-resource capacity in step with the healthy devices,
 * and for each pod bound to the node allocates devices and "starts" the containers through a {@link
 * ContainerRuntime} (the demo runs them as threads, there is no container).
 */
final class DemoKubelet implements AutoCloseable {
  private final KubernetesClient client;
  private final String nodeName;
  private final Path pluginDirectory;
  private final ContainerRuntime runtime;
  private final Consumer<String> log;
  private final Map<String, PluginConnection> plugins = new ConcurrentHashMap<>();
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  private final Map<String, List<String>> allocations = new ConcurrentHashMap<>();
  // Admission (device allocation) is one pod at a time, as in the kubelet's sync loop: the device
  // plugin tells pods apart by the order in which their Allocates arrive.
  private final ExecutorService admission = Executors.newSingleThreadExecutor();
  private final ExecutorService podWorkers = Executors.newVirtualThreadPerTaskExecutor();
  private final EpollEventLoopGroup group = new EpollEventLoopGroup(1);
  private Server registration;
  private SharedIndexInformer<Pod> pods;

  DemoKubelet(
      KubernetesClient client,
      String nodeName,
      Path pluginDirectory,
      ContainerRuntime runtime,
      Consumer<String> log) {
    this.client = client;
    this.nodeName = nodeName;
    this.pluginDirectory = pluginDirectory;
    this.runtime = runtime;
    this.log = log;
  }

  void start() throws IOException {
    Files.createDirectories(pluginDirectory);
    Path socket = pluginDirectory.resolve("kubelet.sock");
    Files.deleteIfExists(socket);
    registration =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(group)
            .workerEventLoopGroup(group)
            .addService(new Registration())
            .build()
            .start();
    pods =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    consider(pod);
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    consider(pod);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknown) {
                    release(pod);
                  }
                });
  }

  /** Per pod ("namespace/name"), the devices Allocate was called for. */
  Map<String, List<String>> allocations() {
    return Map.copyOf(allocations);
  }

  /** Resource names of the plugins registered so far. */
  Set<String> registeredResources() {
    return Set.copyOf(plugins.keySet());
  }

  private void consider(Pod pod) {
    if (waiting(pod)) {
      admission.submit(this::admitWaiting);
    }
  }

  private boolean waiting(Pod pod) {
    return nodeName.equals(pod.getSpec().getNodeName())
        && (pod.getStatus() == null
            || pod.getStatus().getPhase() == null
            || "Pending".equals(pod.getStatus().getPhase()))
        && !admitted.contains(key(pod));
  }

  /**
   * Admits every pod of this node that waits, oldest first, as the kubelet sorts the pods it is
   * handed by creation time; the pods are read from the API, as the device plugin reads them, so an
   * older pod the informer has not shown yet is not overtaken by a newer one (the plugin would then
   * give the newer pod the older one's claim: it infers the pod from that order).
   */
  private void admitWaiting() {
    List<Pod> waiting;
    try {
      waiting =
          client.pods().inAnyNamespace().list().getItems().stream()
              .filter(this::waiting)
              .sorted(
                  Comparator.comparing(
                          (Pod p) -> String.valueOf(p.getMetadata().getCreationTimestamp()))
                      .thenComparing(DemoKubelet::key))
              .toList();
    } catch (RuntimeException e) {
      log.accept("kubelet: listing the node's pods failed: " + e.getMessage());
      return;
    }
    for (Pod pod : waiting) {
      if (admitted.add(key(pod))) {
        admit(pod);
      }
    }
  }

  /** Allocates devices for each container, then has the pod's containers run by a worker. */
  private void admit(Pod pod) {
    List<ContainerRuntime.Launch> launches = new ArrayList<>();
    try {
      for (Container container : pod.getSpec().getContainers()) {
        launches.add(allocate(pod, container));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (RuntimeException e) {
      log.accept("kubelet: pod " + key(pod) + " could not start: " + e.getMessage());
      setPhase(pod, "Failed", e.getMessage());
      release(pod);
      return;
    }
    setPhase(pod, "Running", "");
    podWorkers.submit(() -> run(pod, launches));
  }

  private void run(Pod pod, List<ContainerRuntime.Launch> launches) {
    try {
      List<ContainerRuntime.Exit> exits = new ArrayList<>();
      for (ContainerRuntime.Launch launch : launches) {
        exits.add(runtime.start(launch));
      }
      boolean failed = false;
      for (ContainerRuntime.Exit exit : exits) {
        failed |= !exit.await();
      }
      setPhase(pod, failed ? "Failed" : "Succeeded", "");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      release(pod);
    }
  }

  private ContainerRuntime.Launch allocate(Pod pod, Container container)
      throws InterruptedException {
    Map<String, String> envs = new LinkedHashMap<>();
    List<ContainerRuntime.HostMount> mounts = new ArrayList<>();
    Map<String, Quantity> limits =
        container.getResources() == null || container.getResources().getLimits() == null
            ? Map.of()
            : container.getResources().getLimits();
    for (Map.Entry<String, Quantity> limit : limits.entrySet()) {
      if (!limit.getKey().contains("/") || limit.getKey().startsWith("kubernetes.io/")) {
        continue;
      }
      PluginConnection plugin = awaitPlugin(limit.getKey());
      int count = limit.getValue().getNumericalAmount().intValueExact();
      PluginConnection.Allocation allocation = plugin.allocate(key(pod), count);
      envs.putAll(allocation.envs());
      allocations
          .computeIfAbsent(key(pod), k -> new CopyOnWriteArrayList<>())
          .add(container.getName() + ": " + count + " x " + limit.getKey());
      mounts.addAll(allocation.mounts());
      log.accept(
          "kubelet: "
              + key(pod)
              + "/"
              + container.getName()
              + " allocated "
              + count
              + " x "
              + limit.getKey());
    }
    return new ContainerRuntime.Launch(pod, container, Map.copyOf(envs), List.copyOf(mounts));
  }

  private PluginConnection awaitPlugin(String resource) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      PluginConnection plugin = plugins.get(resource);
      if (plugin != null) {
        return plugin;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("no device plugin registered for " + resource);
  }

  private void release(Pod pod) {
    plugins.values().forEach(p -> p.release(key(pod)));
  }

  private void setPhase(Pod pod, String phase, String message) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .editStatus(
              p -> {
                if (p.getStatus() == null) {
                  p.setStatus(new PodStatus());
                }
                p.getStatus().setPhase(phase);
                p.getStatus().setMessage(message.isEmpty() ? null : message);
                if ("Running".equals(phase)) {
                  p.getStatus().setStartTime(Instant.now().toString());
                }
                return p;
              });
    } catch (RuntimeException e) {
      log.accept("kubelet: cannot set phase of " + key(pod) + ": " + e.getMessage());
    }
  }

  /** Publishes the plugin's healthy device count as the node's capacity, as the kubelet does. */
  private synchronized void updateCapacity(String resource, int healthy) {
    Quantity count = new Quantity(Integer.toString(healthy));
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .nodes()
            .withName(nodeName)
            .editStatus(
                n -> {
                  n.getStatus().getCapacity().put(resource, count);
                  n.getStatus().getAllocatable().put(resource, count);
                  return n;
                });
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          log.accept("kubelet: cannot publish " + resource + " capacity: " + e.getMessage());
          return;
        }
      }
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  @Override
  public void close() throws InterruptedException {
    if (pods != null) {
      pods.close();
    }
    admission.shutdownNow();
    podWorkers.shutdownNow();
    plugins.values().forEach(PluginConnection::close);
    if (registration != null) {
      registration.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private final class Registration extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void register(RegisterRequest request, StreamObserver<Empty> response) {
      if (!"v1beta1".equals(request.getVersion())) {
        response.onError(
            Status.INVALID_ARGUMENT
                .withDescription("unsupported device-plugin API version " + request.getVersion())
                .asRuntimeException());
        return;
      }
      PluginConnection plugin =
          new PluginConnection(
              pluginDirectory.resolve(request.getEndpoint()),
              request.getResourceName(),
              request.getOptions(),
              healthy -> updateCapacity(request.getResourceName(), healthy),
              log);
      PluginConnection previous = plugins.put(request.getResourceName(), plugin);
      if (previous != null) {
        previous.close();
      }
      // Not inside this call's gRPC context: the stream must outlive the Register call.
      Context.ROOT.run(plugin::watch);
      log.accept(
          "kubelet: plugin registered for "
              + request.getResourceName()
              + " at "
              + request.getEndpoint());
      response.onNext(Empty.getDefaultInstance());
      response.onCompleted();
    }
  }
}
